// The bench request's probe (docs/protocol.md, "bench", field `probe`): engine/src/probe.c's
// cb_probe, the engine's own instructions, reached through runners/java/probe_jni.c, which
// build.sh compiles with it into build/runners/java/libcb_probe_jni.so.
package cipherbench;

import java.nio.file.Path;

final class Probe {
    /** Whether the library loaded and its method linked; if not, the runner ignores `probe`. */
    static final boolean LOADED = load();
    /** Whether switches() linked too (a library built before it lacks it: no probe_switches). */
    static final boolean COUNTS = LOADED && counts();
    /** The longs one reading takes in take()'s array: serial ns, parallel ns, switches. */
    static final int STRIDE = 3;

    private Probe() {}

    /** One reading (read()) into out[at] and out[at + 1], and right after it, on the same
     *  (timing) thread, its involuntary context switches so far into out[at + 2]: -1 where
     *  they cannot be counted. */
    static void take(long k, long[] out, int at) {
        read(k, out, at);
        out[at + 2] = COUNTS ? switches() : -1;
    }

    /** The calling thread's involuntary context switches so far, -1 where unknown. */
    static native long switches();

    private static boolean counts() {
        try {
            switches();
            return true;
        } catch (LinkageError e) {  // an older library without the method
            return false;
        }
    }

    /** One reading of 1000 x k additions: out[at] the serial chain's ns, out[at + 1] the
     *  parallel chains'. A native call: HotSpot can neither hoist it out of a loop nor drop it. */
    static native void read(long k, long[] out, int at);

    /** Loads libcb_probe_jni.so from build/runners/java, the folder above target/classes
     *  (where build.sh has Maven put these classes), and links read() with one small reading. */
    private static boolean load() {
        try {
            Path classes = Path.of(Probe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            System.load(classes.getParent().getParent().resolve("libcb_probe_jni.so").toString());
            read(1, new long[2], 0);
            return true;
        } catch (Exception | LinkageError e) {  // missing, unloadable or without the method
            return false;
        }
    }
}
