# Crypto++'s linkage (manifest.toml names this file; engine/CMakeLists.txt includes it once
# the probe found libcrypto++, with the pkg-config results under the prefix ${CB_PKG}, and
# builds the adapter with CB_LIBS, CB_INCLUDES and CB_OPTIONS as this file leaves them).
#
# The static archive where the distribution ships one (Debian's libcrypto++-dev does):
# Crypto++'s own GNUmakefile builds libcryptopp.a by default and links cryptest against it
# (LINK_LIBRARY ?= libcryptopp.a), so this is the build its users and its benchmark run.
# Either way AES's speed at 2048 B moves by a tenth with where the linker puts its AES-NI
# loop (README.md, "Linkage"). -DCB_CRYPTOPP_SHARED=ON links the shared object instead.
option(CB_CRYPTOPP_SHARED "link the shared libcrypto++ even where the static archive exists" OFF)
find_library(CB_CRYPTOPP_ARCHIVE NAMES libcrypto++.a libcryptopp.a HINTS ${${CB_PKG}_LIBRARY_DIRS})
if(CB_CRYPTOPP_ARCHIVE AND NOT CB_CRYPTOPP_SHARED)
  find_package(Threads REQUIRED)
  # A copy of the archive whose members' .text starts on a 64-byte line, so each of
  # Crypto++'s functions sits where its compiler put it within a line, whatever else the
  # engine links before it. Without this, any change to the engine's own code moved AES's
  # block loop within its line and AES/CTR's speed by up to a tenth (README.md, "Linkage").
  set(CB_CRYPTOPP_LINKED ${CMAKE_CURRENT_BINARY_DIR}/cryptopp-line-aligned.a)
  add_custom_command(OUTPUT ${CB_CRYPTOPP_LINKED}
    COMMAND ${CMAKE_OBJCOPY} --set-section-alignment .text=64 ${CB_CRYPTOPP_ARCHIVE} ${CB_CRYPTOPP_LINKED}
    DEPENDS ${CB_CRYPTOPP_ARCHIVE}
    COMMENT "Aligning Crypto++'s archive members to 64-byte lines")
  add_custom_target(cb_cryptopp_line_aligned DEPENDS ${CB_CRYPTOPP_LINKED})
  add_dependencies(cipherbench-engine cb_cryptopp_line_aligned)
  set(CB_CRYPTOPP_LINKAGE "static (${CB_CRYPTOPP_ARCHIVE}, members on 64-byte lines)")
  # Variant builds (cipherbench/builds, registry/builds.toml [cryptopp]): the Crypto++
  # translation units named in CB_CRYPTOPP_UNITS are compiled from Debian's source package
  # (CB_CRYPTOPP_SOURCE, unpacked by scripts/fetch-cryptopp-source at the installed version)
  # with the variant's compiler and flags, and linked whole ahead of the distribution's archive,
  # which supplies every other unit. The archive's members of the same names are then never
  # pulled in: each defines only symbols the variant's copy already defines. Crypto++'s
  # GNUmakefile adds -DNDEBUG unless told otherwise; so do we. The units chosen need no
  # per-file instruction-set flags there (rijndael_simd.cpp, which does, stays the archive's).
  # Sets CB_CRYPTOPP_UNITS_LINKED (link items, empty without units) and CB_CRYPTOPP_LINKAGE.
  set(CB_CRYPTOPP_SOURCE "" CACHE PATH "Crypto++ source tree for a variant's own units (empty: none)")
  set(CB_CRYPTOPP_UNITS "" CACHE STRING "Crypto++ units to compile from CB_CRYPTOPP_SOURCE, e.g. serpent;twofish")
  set(CB_CRYPTOPP_UNITS_LINKED "")
  if(CB_CRYPTOPP_UNITS)
    if(NOT EXISTS "${CB_CRYPTOPP_SOURCE}/cryptlib.cpp")
      message(FATAL_ERROR "CB_CRYPTOPP_UNITS needs CB_CRYPTOPP_SOURCE, a Crypto++ tree (scripts/fetch-cryptopp-source)")
    endif()
    set(cb_units_src "")
    foreach(u ${CB_CRYPTOPP_UNITS})
      if(NOT EXISTS "${CB_CRYPTOPP_SOURCE}/${u}.cpp")
        message(FATAL_ERROR "CB_CRYPTOPP_UNITS: no ${u}.cpp in ${CB_CRYPTOPP_SOURCE}")
      endif()
      list(APPEND cb_units_src "${CB_CRYPTOPP_SOURCE}/${u}.cpp")
    endforeach()
    add_library(cb_cryptopp_units STATIC ${cb_units_src})
    target_include_directories(cb_cryptopp_units PRIVATE ${CB_CRYPTOPP_SOURCE})
    target_compile_definitions(cb_cryptopp_units PRIVATE NDEBUG)
    target_compile_options(cb_cryptopp_units PRIVATE -w)  # Crypto++'s warnings are not ours to fix
    set(cb_units_archive $<TARGET_FILE:cb_cryptopp_units>)
    if(CB_LINE_ALIGN)  # the same placement control as the archive above
      set(cb_units_archive ${CMAKE_CURRENT_BINARY_DIR}/cryptopp-units-line-aligned.a)
      add_custom_command(OUTPUT ${cb_units_archive}
        COMMAND ${CMAKE_OBJCOPY} --set-section-alignment .text=64 $<TARGET_FILE:cb_cryptopp_units> ${cb_units_archive}
        DEPENDS cb_cryptopp_units
        COMMENT "Aligning the variant's Crypto++ units to 64-byte lines")
      add_custom_target(cb_cryptopp_units_aligned DEPENDS ${cb_units_archive})
      add_dependencies(cipherbench-engine cb_cryptopp_units_aligned)
    else()
      add_dependencies(cipherbench-engine cb_cryptopp_units)
    endif()
    set(CB_CRYPTOPP_UNITS_LINKED "-Wl,--whole-archive" ${cb_units_archive} "-Wl,--no-whole-archive")
    string(REPLACE ";" " " cb_units_text "${CB_CRYPTOPP_UNITS}")
    set(CB_CRYPTOPP_LINKAGE "${CB_CRYPTOPP_LINKAGE}, with units ${cb_units_text} compiled by this build from ${CB_CRYPTOPP_SOURCE}")
  endif()
  set(CB_LIBS ${CB_CRYPTOPP_UNITS_LINKED} ${CB_CRYPTOPP_LINKED} Threads::Threads)
  set(CB_INCLUDES ${${CB_PKG}_INCLUDE_DIRS})
  set(CB_OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"${CB_CRYPTOPP_LINKAGE}\"")
else()
  set(CB_OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"shared (libcrypto++.so)\"")
endif()
