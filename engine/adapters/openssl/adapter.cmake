# OpenSSL 3 or 1.1.1 (Debian 11's): compat.inc handles the two API generations.
pkg_check_modules(CB_OPENSSL IMPORTED_TARGET libcrypto>=1.1.1)
if(CB_OPENSSL_FOUND)
  cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS PkgConfig::CB_OPENSSL)
else()
  cb_adapter_missing(${CB_FOLDER} "OpenSSL 1.1.1 or later (libcrypto) not found by pkg-config at build time; install libssl-dev")
endif()
