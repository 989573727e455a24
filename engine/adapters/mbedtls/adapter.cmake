# mbedTLS 2.28 installs no .pc file (P17): probe the header and libmbedcrypto.
find_path(CB_MBEDTLS_INCLUDE mbedtls/version.h)
find_library(CB_MBEDCRYPTO_LIB mbedcrypto)
if(CB_MBEDTLS_INCLUDE AND CB_MBEDCRYPTO_LIB)
  cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS ${CB_MBEDCRYPTO_LIB} INCLUDES ${CB_MBEDTLS_INCLUDE})
else()
  cb_adapter_missing(${CB_FOLDER} "mbedTLS (mbedtls/version.h, libmbedcrypto) not found at build time; install libmbedtls-dev")
endif()
