// The JNI face of engine/src/probe.c for the Java runner (Probe.java): build.sh compiles the
// two into build/runners/java/libcb_probe_jni.so, so Java reads the core with the engine's
// own instructions and clock (docs/protocol.md, bench field `probe`).
#include <jni.h>

#include "probe.h"

// cipherbench.Probe.read(long k, long[] out, int at): one cb_probe reading of 1000 x k
// additions into out[at] (serial ns) and out[at + 1] (parallel ns). The caller checks the
// bounds; a native call is opaque to HotSpot, which can neither hoist nor drop it.
JNIEXPORT void JNICALL Java_cipherbench_Probe_read(JNIEnv *env, jclass cls, jlong k, jlongArray out, jint at) {
    (void)cls;
    uint64_t r[2];
    cb_probe((uint64_t)k, r);
    const jlong v[2] = {(jlong)r[0], (jlong)r[1]};
    (*env)->SetLongArrayRegion(env, out, at, 2, v);
}

// cipherbench.Probe.switches(): the calling thread's involuntary context switches so far
// (cb_preemptions), -1 where the system cannot tell (its UINT64_MAX). HotSpot runs a Java
// thread on one native thread, so the count is the timing thread's.
JNIEXPORT jlong JNICALL Java_cipherbench_Probe_switches(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    const uint64_t n = cb_preemptions();
    return n == UINT64_MAX ? -1 : (jlong)n;
}
