pkg_check_modules(CB_CRYPTOPP IMPORTED_TARGET libcrypto++>=8.0)
# The static archive where the distribution ships one (Debian's libcrypto++-dev does):
# Crypto++'s own GNUmakefile builds libcryptopp.a by default and links cryptest against it
# (LINK_LIBRARY ?= libcryptopp.a), so this is the build its users and its benchmark run.
# Either way AES's speed at 2048 B moves by a tenth with where the linker puts its AES-NI
# loop (README.md, "Linkage"). -DCB_CRYPTOPP_SHARED=ON links the shared object instead.
option(CB_CRYPTOPP_SHARED "link the shared libcrypto++ even where the static archive exists" OFF)
if(CB_CRYPTOPP_FOUND)
  find_library(CB_CRYPTOPP_ARCHIVE NAMES libcrypto++.a libcryptopp.a HINTS ${CB_CRYPTOPP_LIBRARY_DIRS})
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
    include(${CB_DIR}/units.cmake)  # a variant build's own Crypto++ units, when asked for
    cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp
               LIBS ${CB_CRYPTOPP_UNITS_LINKED} ${CB_CRYPTOPP_LINKED} Threads::Threads
               INCLUDES ${CB_CRYPTOPP_INCLUDE_DIRS}
               OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"${CB_CRYPTOPP_LINKAGE}\"")
  else()
    cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS PkgConfig::CB_CRYPTOPP
               OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"shared (libcrypto++.so)\"")
  endif()
else()
  cb_adapter_missing(${CB_FOLDER} "Crypto++ (libcrypto++) not found by pkg-config at build time; install libcrypto++-dev")
endif()
