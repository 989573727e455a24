cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp)
