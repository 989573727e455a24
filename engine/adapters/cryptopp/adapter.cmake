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
    cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS ${CB_CRYPTOPP_ARCHIVE} Threads::Threads
               INCLUDES ${CB_CRYPTOPP_INCLUDE_DIRS} OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"static (${CB_CRYPTOPP_ARCHIVE})\"")
  else()
    cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS PkgConfig::CB_CRYPTOPP
               OPTIONS "-DCB_CRYPTOPP_LINKAGE=\"shared (libcrypto++.so)\"")
  endif()
else()
  cb_adapter_missing(${CB_FOLDER} "Crypto++ (libcrypto++) not found by pkg-config at build time; install libcrypto++-dev")
endif()
