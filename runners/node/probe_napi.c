// The N-API face of engine/src/probe.c for the Node runner (runner.mjs, loadProbe): build.sh
// compiles the two into build/runners/node/cb_probe.node, so Node reads the core with the
// engine's own instructions and clock (docs/protocol.md, bench field `probe`). N-API's
// functions are resolved in the node process that loads the addon, so nothing is linked.
#include <node_api.h>

#include "probe.h"

// read(k): one cb_probe reading of 1000 x k additions, as [serial ns, parallel ns] (Numbers:
// exact up to 2^53 ns). k is a non-negative safe integer; anything else throws a TypeError.
static napi_value read_probe(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value arg, pair, v;
    double k = -1;
    if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc != 1 ||
        napi_get_value_double(env, arg, &k) != napi_ok || !(k >= 0 && k <= 9007199254740991.0) ||
        k != (double)(uint64_t)k) {
        napi_throw_type_error(env, NULL, "read(k) takes one non-negative integer");
        return NULL;
    }
    uint64_t out[2];
    cb_probe((uint64_t)k, out);
    if (napi_create_array_with_length(env, 2, &pair) != napi_ok) return NULL;
    for (uint32_t i = 0; i < 2; ++i) {
        if (napi_create_double(env, (double)out[i], &v) != napi_ok || napi_set_element(env, pair, i, v) != napi_ok)
            return NULL;
    }
    return pair;
}

NAPI_MODULE_INIT() {
    napi_value fn;
    if (napi_create_function(env, "read", NAPI_AUTO_LENGTH, read_probe, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, "read", fn) != napi_ok)
        return NULL;
    return exports;
}
