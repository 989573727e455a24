# A deliberately leaky RC4, for the side-channel checks' tests only (README.md). Always
# compiled; announced only when CIPHERBENCH_TEST_LEAKY=1.
cb_adapter(${CB_FOLDER} SOURCES ${CB_DIR}/adapter.cpp)
