# The project's own reference implementations (engine/reference), always built.
if(CB_LINE_ALIGN)
  # Variant builds (cipherbench/builds): the same 64-byte line alignment of each archive
  # member's .text as the Crypto++ adapter applies (adapters/cryptopp/adapter.cmake), so a
  # compiler or flag is compared at a controlled code placement rather than wherever the
  # engine's own code happens to push each cipher's loop.
  set(CB_REF_LINKED ${CMAKE_CURRENT_BINARY_DIR}/cbref-line-aligned.a)
  add_custom_command(OUTPUT ${CB_REF_LINKED}
    COMMAND ${CMAKE_OBJCOPY} --set-section-alignment .text=64 $<TARGET_FILE:cbref> ${CB_REF_LINKED}
    DEPENDS cbref
    COMMENT "Aligning the reference ciphers' archive members to 64-byte lines")
  add_custom_target(cb_cbref_line_aligned DEPENDS ${CB_REF_LINKED})
  add_dependencies(cipherbench-engine cb_cbref_line_aligned)
  cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS ${CB_REF_LINKED}
             INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/reference/include)
else()
  cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS cbref)
endif()
