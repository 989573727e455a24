# libmcrypt ships no .pc file; libmcrypt-config exists but a header + library
# probe is enough (the modules are built into the library).
find_path(CB_MCRYPT_INCLUDE mcrypt.h)
find_library(CB_MCRYPT_LIB mcrypt)
if(CB_MCRYPT_INCLUDE AND CB_MCRYPT_LIB)
  cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS ${CB_MCRYPT_LIB} INCLUDES ${CB_MCRYPT_INCLUDE})
else()
  cb_adapter_missing(${CB_FOLDER} "libmcrypt (mcrypt.h, libmcrypt.so) not found at build time; install libmcrypt-dev")
endif()
