# The project's own reference implementations (engine/reference), always built (manifest.toml
# names this file; engine/CMakeLists.txt builds the adapter with CB_LIBS and CB_INCLUDES as
# this file leaves them).
if(CB_LINE_ALIGN)
  # Variant builds (cipherbench/builds): the same 64-byte line alignment of each archive
  # member's .text as the Crypto++ adapter applies (adapters/cryptopp/build.cmake), so a
  # compiler or flag is compared at a controlled code placement rather than wherever the
  # engine's own code happens to push each cipher's loop.
  set(CB_REF_LINKED ${CMAKE_CURRENT_BINARY_DIR}/cbref-line-aligned.a)
  add_custom_command(OUTPUT ${CB_REF_LINKED}
    COMMAND ${CMAKE_OBJCOPY} --set-section-alignment .text=64 $<TARGET_FILE:cbref> ${CB_REF_LINKED}
    DEPENDS cbref
    COMMENT "Aligning the reference ciphers' archive members to 64-byte lines")
  add_custom_target(cb_cbref_line_aligned DEPENDS ${CB_REF_LINKED})
  add_dependencies(cipherbench-engine cb_cbref_line_aligned)
  set(CB_LIBS ${CB_REF_LINKED})
  set(CB_INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/reference/include)
else()
  set(CB_LIBS cbref)
endif()
