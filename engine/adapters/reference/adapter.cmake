# The project's own reference implementations (engine/reference), always built.
cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp LIBS cbref)
