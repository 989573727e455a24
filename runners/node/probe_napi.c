// The N-API face of engine/src/probe.c for the Node runner (runner.mjs, loadProbe): build.sh
// compiles the two into build/runners/node/cb_probe.node, so Node reads the core with the
// engine's own instructions and clock (docs/protocol.md, bench field `probe`). N-API's
// functions are resolved in the node process that loads the addon, so nothing is linked.
//
// The few Node-API declarations it uses are written here rather than taken from node_api.h:
// Debian 12's nodejs ships no headers (they are in libnode-dev, which conflicts with other
// builds of nodejs), and Node-API is an ABI that every Node.js release since 10 keeps (Node.js
// docs, "Node-API": napi_status, the opaque handles, and the module entry point
// napi_register_module_v1 that a .node file without self-registration exports).
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;  // an enum in node_api_types.h; napi_ok is 0
#define napi_ok 0
#define NAPI_AUTO_LENGTH SIZE_MAX
typedef napi_value (*napi_callback)(napi_env env, napi_callback_info info);

napi_status napi_get_cb_info(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv,
                             napi_value *this_arg, void **data);
napi_status napi_get_value_double(napi_env env, napi_value value, double *result);
napi_status napi_throw_type_error(napi_env env, const char *code, const char *msg);
napi_status napi_create_array_with_length(napi_env env, size_t length, napi_value *result);
napi_status napi_create_double(napi_env env, double value, napi_value *result);
napi_status napi_set_element(napi_env env, napi_value object, uint32_t index, napi_value value);
napi_status napi_create_function(napi_env env, const char *utf8name, size_t length, napi_callback cb,
                                 void *data, napi_value *result);
napi_status napi_set_named_property(napi_env env, napi_value object, const char *utf8name, napi_value value);
napi_status napi_get_null(napi_env env, napi_value *result);

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

// switches(): the calling thread's involuntary context switches so far (cb_preemptions) as a
// Number, null where the system cannot tell (its UINT64_MAX). Called from JavaScript, the
// calling thread is the main thread, the one that times the batches.
static napi_value read_switches(napi_env env, napi_callback_info info) {
    (void)info;
    napi_value v;
    const uint64_t n = cb_preemptions();
    if ((n == UINT64_MAX ? napi_get_null(env, &v) : napi_create_double(env, (double)n, &v)) != napi_ok) return NULL;
    return v;
}

// The module's entry point, as NAPI_MODULE_INIT() declares it.
__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env, napi_value exports);

napi_value napi_register_module_v1(napi_env env, napi_value exports) {
    napi_value fn, sw;
    if (napi_create_function(env, "read", NAPI_AUTO_LENGTH, read_probe, NULL, &fn) != napi_ok ||
        napi_set_named_property(env, exports, "read", fn) != napi_ok ||
        napi_create_function(env, "switches", NAPI_AUTO_LENGTH, read_switches, NULL, &sw) != napi_ok ||
        napi_set_named_property(env, exports, "switches", sw) != napi_ok)
        return NULL;
    return exports;
}
