// cipherbench runner for Java (protocol v1, docs/protocol.md): JSON lines on
// stdin/stdout. Implementations: "sunjce" (SunJCE ciphers and SUN digests of the
// running JDK, SunJceImpl.java) and "bouncycastle" (Bouncy Castle's lightweight
// API, BcImpl.java). args[0] = the registry expanded to JSON by build.sh.
package cipherbench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.BufferedReader;
import java.io.BufferedOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

public final class Main {
    // ------------------------------------------------------------ errors
    static final class Fail extends Exception {
        Fail(String m) { super(m); }
    }

    static final class Unsupported extends Exception {
        Unsupported(String m) { super(m); }
    }

    /** An AEAD tag did not verify. */
    static final class AuthFail extends Exception {
        AuthFail() { super("tag mismatch", null, false, false); }
    }

    // ------------------------------------------------------------ registry
    static final class Prim {
        String name, kind, family, mode;
        int keyBytes, blockBytes, ivBytes, tagBytes, digestBytes;
        boolean wholeBlocks;

        boolean aead() { return kind.equals("aead"); }
    }

    // ------------------------------------------------------------ what an implementation provides
    /** One keyed cipher object. The runner calls init/restart, then update* and finish. */
    abstract static class Ctx {
        /** Full set-up: key schedule, IV/nonce, associated data. */
        abstract void init(boolean enc, byte[] key, byte[] iv, byte[] aad) throws Exception;

        /** A new message with the key already set: IV/nonce and associated data only
         *  (APIs without an IV-only reset do what they must and say so). */
        abstract void restart(boolean enc, byte[] iv, byte[] aad) throws Exception;

        /** Streaming: returns the bytes written to out. */
        abstract int update(byte[] in, int off, int len, byte[] out, int outOff) throws Exception;

        /** Ends the message (AEAD: writes or checks the tag; throws AuthFail). */
        abstract int finish(byte[] out, int outOff) throws Exception;

        /** A whole message after init/restart. */
        int process(byte[] in, int off, int len, byte[] out, int outOff) throws Exception {
            int n = update(in, off, len, out, outOff);
            return n + finish(out, outOff + n);
        }
    }

    abstract static class HashCtx {
        abstract void reset();
        abstract void update(byte[] in, int off, int len);
        abstract int doFinal(byte[] out);  // resets
    }

    abstract static class Impl {
        final Map<String, String> offers = new TreeMap<>();  // canonical name -> provider (the path in words)
        // canonical name -> the same path's features (docs/protocol.md, features); absent: unknown
        final Map<String, List<String>> features = new TreeMap<>();
        final Map<String, String> notes = new TreeMap<>();

        abstract String name();
        abstract String library();
        abstract String version();
        abstract Ctx ctx(Prim p) throws Exception;          // a fresh, unkeyed object
        abstract HashCtx hash(Prim p) throws Exception;
        /** Why a bench that cannot be timed honestly is refused, or null. */
        String benchRefusal(Prim p, String op, String workload) { return null; }
    }

    // ------------------------------------------------------------ runner state
    static long warmupNs = 1_000_000_000L;
    final Map<String, Prim> reg = new LinkedHashMap<>();
    final Map<String, Impl> impls = new LinkedHashMap<>();
    final Set<String> warmed = new HashSet<>();
    final Set<String> warmedPaths = new HashSet<>();

    Main(Path registry) throws Exception {
        for (Object o : (List<?>) Json.parse(Files.readString(registry))) {
            @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) o;
            Prim p = new Prim();
            p.name = (String) m.get("name");
            p.kind = (String) m.get("kind");
            p.family = (String) m.get("family");
            p.mode = m.get("mode") instanceof String ? (String) m.get("mode") : "";
            p.keyBytes = ((Number) m.get("key_bytes")).intValue();
            p.blockBytes = ((Number) m.get("block_bytes")).intValue();
            p.ivBytes = ((Number) m.get("iv_bytes")).intValue();
            p.tagBytes = ((Number) m.get("tag_bytes")).intValue();
            p.digestBytes = ((Number) m.get("digest_bytes")).intValue();
            p.wholeBlocks = Boolean.TRUE.equals(m.get("whole_blocks"));
            reg.put(p.name, p);
        }
        for (Impl im : new Impl[] {new SunJceImpl(reg), new BcImpl(reg)}) impls.put(im.name(), im);
    }

    // ------------------------------------------------------------ field helpers
    static String str(Map<String, Object> req, String f, String dflt) throws Fail {
        Object v = req.get(f);
        if (v == null && !req.containsKey(f)) {
            if (dflt != null) return dflt;
            throw new Fail("missing field '" + f + "'");
        }
        if (!(v instanceof String)) throw new Fail("field '" + f + "' must be a string");
        return (String) v;
    }

    static long count(Map<String, Object> req, String f, long dflt, boolean required) throws Fail {
        if (!req.containsKey(f)) {
            if (required) throw new Fail("missing field '" + f + "'");
            return dflt;
        }
        Object v = req.get(f);
        if (!(v instanceof Long) || (Long) v < 0) throw new Fail("field '" + f + "' must be a non-negative integer");
        return (Long) v;
    }

    static byte[] unhex(Map<String, Object> req, String f, boolean required) throws Fail {
        Object v = req.get(f);
        if (v == null) {
            if (required) throw new Fail("missing field '" + f + "'");
            return new byte[0];
        }
        if (!(v instanceof String)) throw new Fail("field '" + f + "' must be a hex string");
        String s = (String) v;
        if (s.length() % 2 != 0) throw new Fail("field '" + f + "' has an odd number of hex digits");
        try {
            return HEX.parseHex(s);  // either case, as docs/protocol.md allows
        } catch (IllegalArgumentException e) {
            throw new Fail("field '" + f + "' is not hex");
        }
    }

    static final HexFormat HEX = HexFormat.of();  // lower case, as the protocol's outputs are

    static String hex(byte[] b, int off, int n) {
        return HEX.formatHex(b, off, off + n);
    }

    // ------------------------------------------------------------ requests
    Map<String, Object> handle(Map<String, Object> req) throws Exception {
        String op = str(req, "op", null);
        switch (op) {
            case "hello": return hello();
            case "encrypt": return cryptFilled(req, true);
            case "decrypt": return cryptFilled(req, false);
            case "hash": return hashOnce(req);
            case "bench": return bench(req);
            case "cpu-clock": throw new Unsupported("cpu-clock is not available in Java (no cycle-exact loop)");
            case "ct-sample": return ctSample(req);
            default:
                throw new Fail("unknown op '" + op + "'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit");
        }
    }

    Map<String, Object> hello() {
        List<Object> list = new ArrayList<>();
        for (Impl im : impls.values()) {
            Map<String, Object> j = new LinkedHashMap<>();
            List<Object> prims = new ArrayList<>();
            for (Map.Entry<String, String> e : im.offers.entrySet()) {
                Map<String, Object> p = new LinkedHashMap<>();
                p.put("name", e.getKey());
                p.put("provider", e.getValue());
                if (im.features.containsKey(e.getKey())) p.put("features", im.features.get(e.getKey()));
                prims.add(p);
            }
            j.put("name", im.name());
            j.put("library", im.library());
            j.put("version", im.version());
            j.put("available", !prims.isEmpty());
            if (prims.isEmpty()) j.put("reason", "no primitive could be set up");
            j.put("primitives", prims);
            Map<String, Object> notes = new LinkedHashMap<>(im.notes);
            notes.put("warmup_ms", warmupNs / 1_000_000);
            // what the JVM was started with (runners/java/run: -Xbatch moves JIT compilation
            // into the untimed warm-up), so a result says how its runtime was set up
            notes.put("jvm_options", String.join(" ",
                    java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()));
            j.put("notes", notes);
            list.add(j);
        }
        Map<String, Object> clocks = new LinkedHashMap<>();
        clocks.put("monotonic", "System.nanoTime");
        clocks.put("tsc", null);
        clocks.put("core_cycles", null);
        Map<String, Object> r = ok();
        r.put("protocol", 1L);
        r.put("runner", "java");
        r.put("language", "Java");
        r.put("jit", true);  // HotSpot compiles hot loops while they run
        r.put("runtime", System.getProperty("java.vm.name") + " " + Runtime.version() + " ("
                + System.getProperty("java.vendor") + ")");
        r.put("clocks", clocks);
        r.put("implementations", list);
        return r;
    }

    static Map<String, Object> ok() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("status", "ok");
        return r;
    }

    final class Target {
        Impl impl;
        Prim p;
    }

    Target target(Map<String, Object> req) throws Exception {
        String in = str(req, "impl", null), pn = str(req, "primitive", null);
        Target t = new Target();
        t.p = reg.get(pn);
        if (t.p == null) throw new Fail("unknown primitive '" + pn + "' (not in the registry)");
        t.impl = impls.get(in);
        if (t.impl == null) throw new Fail("unknown implementation '" + in + "'");
        if (!t.impl.offers.containsKey(pn)) throw new Unsupported(in + " does not offer " + pn);
        return t;
    }

    static void checkLengths(Prim p, byte[] key, byte[] iv, byte[] aad) throws Fail {
        if (key.length != p.keyBytes)
            throw new Fail(p.name + " takes a " + p.keyBytes + "-byte key, got " + key.length);
        if (iv.length != p.ivBytes)
            throw new Fail(p.name + " takes a " + p.ivBytes + "-byte IV/nonce, got " + iv.length);
        if (aad.length != 0 && !p.aead())
            throw new Fail(p.name + " is not an AEAD and takes no associated data");
    }

    static void checkInput(Prim p, long n) throws Fail {
        if (p.wholeBlocks && n % p.blockBytes != 0)
            throw new Fail(p.name + " takes whole " + p.blockBytes + "-byte blocks (no padding), got " + n + " bytes");
    }

    /**
     * ct-sample (docs/protocol.md): single encryptions of a fixed and a random class,
     * interleaved in an order drawn from the seed (SplittableRandom), each timed alone with
     * System.nanoTime. Vary "key": init (key schedule, IV) and the whole input per call;
     * "plaintext": keyed once, restart with the IV per call. AEADs: init per call with the
     * nonce incremented each time, in both classes alike (JCE refuses a GCM nonce used again
     * on one key). 5,000 untimed calls first, for the JIT.
     */
    Map<String, Object> ctSample(Map<String, Object> req) throws Exception {
        Target t = target(req);
        Prim p = t.p;
        if (p.kind.equals("hash")) throw new Unsupported(p.name + " is a hash: ct-sample times ciphers");
        String vary = str(req, "vary", null);
        if (!vary.equals("key") && !vary.equals("plaintext")) throw new Fail("vary must be 'key' or 'plaintext'");
        long samples = count(req, "samples", 0, true), seed = count(req, "seed", 0, true);
        if (samples < 2 || samples > 1_000_000) throw new Fail("samples must be in 2..1000000");
        byte[] key = unhex(req, "key", true), iv = unhex(req, "iv", false), aad = unhex(req, "aad", false),
                msg = unhex(req, "input", true);
        checkLengths(p, key, iv, aad);
        if (msg.length < 1 || msg.length > 65536) throw new Fail("input must be 1 to 65536 bytes");
        checkInput(p, msg.length);
        boolean byKey = vary.equals("key");
        byte[] fixed = byKey ? key : msg;
        java.util.SplittableRandom rng = new java.util.SplittableRandom(seed);
        int n = (int) samples;
        List<Long> classes = new ArrayList<>(n), times = new ArrayList<>(n);
        byte[][] inputs = new byte[n][];
        for (int i = 0; i < n; i++) classes.add((long) rng.nextInt(2));
        for (int i = 0; i < n; i++) {
            // every call its own buffer, the fixed class a copy: the classes differ in their
            // values, never in where they lie (one shared fixed buffer reads as a leak)
            if (classes.get(i) == 0) { inputs[i] = fixed.clone(); continue; }
            inputs[i] = new byte[fixed.length];
            rng.nextBytes(inputs[i]);
        }
        Ctx c = t.impl.ctx(p);
        if (!byKey) c.init(true, key, iv, aad);
        byte[] out = new byte[msg.length + p.tagBytes + 64];
        for (int i = 0; i < 5000; i++) ctCall(c, p, byKey, inputs[i % n], key, iv, aad, msg, out);  // warm-up
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            ctCall(c, p, byKey, inputs[i], key, iv, aad, msg, out);
            times.add(System.nanoTime() - t0);
        }
        Map<String, Object> r = ok();
        r.put("vary", vary);
        r.put("samples", samples);
        r.put("timer", "System.nanoTime ns");
        r.put("classes", classes);
        r.put("times", times);
        return r;
    }

    static void ctCall(Ctx c, Prim p, boolean byKey, byte[] x, byte[] key, byte[] iv, byte[] aad, byte[] msg,
                       byte[] out) throws Exception {
        if (p.aead()) bump(iv);
        if (byKey) c.init(true, x, iv, aad);
        else if (p.aead()) c.init(true, key, iv, aad);
        else c.restart(true, iv, aad);
        byte[] in = byKey ? msg : x;
        c.process(in, 0, in.length, out, 0);
    }

    Map<String, Object> crypt(Map<String, Object> req, boolean enc) throws Exception {
        Target t = target(req);
        Prim p = t.p;
        if (p.kind.equals("hash")) throw new Fail(p.name + " is a hash: use op 'hash'");
        if (Boolean.TRUE.equals(req.get("inplace"))) throw new Unsupported("this runner does not offer in-place operation ('inplace')");
        byte[] key = unhex(req, "key", false), iv = unhex(req, "iv", false), aad = unhex(req, "aad", false),
                in = unhex(req, "input", true);
        checkLengths(p, key, iv, aad);
        int n = in.length;
        if (p.aead() && !enc) {
            if (n < p.tagBytes)
                throw new Fail(p.name + " decryption input must end with the " + p.tagBytes + "-byte tag");
            n -= p.tagBytes;
        }
        checkInput(p, n);
        List<Integer> parts = chunks(req, p, n);
        Ctx c = t.impl.ctx(p);
        c.init(enc, key, iv, aad);
        byte[] out = new byte[in.length + p.tagBytes + 64];
        int got = 0;
        Map<String, Object> r = ok();
        if (parts != null) r.put("chunked", true);
        try {
            if (parts == null) got = c.process(in, 0, in.length, out, 0);
            else {
                int at = 0;
                for (int len : parts) {
                    got += c.update(in, at, len, out, got);
                    at += len;
                }
                if (at < in.length) got += c.update(in, at, in.length - at, out, got);  // AEAD decryption: the tag
                got += c.finish(out, got);
            }
        } catch (AuthFail e) {
            r.put("authentic", false);
            return r;
        }
        int want = p.aead() ? (enc ? n + p.tagBytes : n) : n;
        if (got != want) throw new Fail(p.name + ": the library returned " + got + " bytes, expected " + want);
        if (p.aead() && !enc) r.put("authentic", true);
        r.put("output", hex(out, 0, got));
        return r;
    }

    /** Cap on "fill" "bytes" (64 MiB, docs/protocol.md). */
    static final long MAX_FILL = 64L << 20;

    /**
     * encrypt/decrypt with the optional "fill" and "digest" fields of docs/protocol.md around
     * crypt: with "fill" {"seed", "bytes": N} the input is N generated bytes followed by the
     * bytes of "input" (fillInput); with "digest" "sha256" the answer carries "output_sha256",
     * the SHA-256 of the output, instead of "output".
     */
    Map<String, Object> cryptFilled(Map<String, Object> req, boolean enc) throws Exception {
        boolean digest = req.containsKey("digest"), fill = req.containsKey("fill");
        if (digest && !"sha256".equals(req.get("digest")))
            throw new Fail("field 'digest' must be \"sha256\" (the only digest accepted)");
        if (fill) {
            byte[] in = fillInput(req.get("fill"), unhex(req, "input", true));
            req = new LinkedHashMap<>(req);
            req.put("input", hex(in, 0, in.length));  // crypt reads the whole input here
        }
        Map<String, Object> r = crypt(req, enc);
        if (fill) r.put("filled", true);
        if (digest && r.containsKey("output")) {  // absent for a rejected forgery: no digest either
            byte[] d = MessageDigest.getInstance("SHA-256").digest(unhex(r, "output", true));
            r.remove("output");
            r.put("output_sha256", hex(d, 0, d.length));
        }
        return r;
    }

    /** The generated bytes of "fill", SHA-256(seed ‖ uint64_be(0)) ‖ SHA-256(seed ‖ uint64_be(1))
     *  ‖ ... cut to "bytes", followed by {@code tail}. */
    static byte[] fillInput(Object fill, byte[] tail) throws Exception {
        if (!(fill instanceof Map)) throw new Fail("field 'fill' must be an object {\"seed\": hex, \"bytes\": N}");
        @SuppressWarnings("unchecked") Map<String, Object> f = (Map<String, Object>) fill;
        byte[] seed;
        try {
            seed = unhex(f, "seed", true);
        } catch (Fail e) {
            throw new Fail("field 'fill.seed' must be a hex string");
        }
        Object b = f.get("bytes");
        if (!(b instanceof Long) || (Long) b < 0 || (Long) b > MAX_FILL)
            throw new Fail("field 'fill.bytes' must be an integer from 0 to " + MAX_FILL + ", got " + Json.write(b));
        int n = ((Long) b).intValue();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        ByteBuffer counter = ByteBuffer.allocate(8);  // big-endian
        byte[] gen = new byte[(n + 31) / 32 * 32];
        for (int i = 0; i < gen.length; i += 32) {
            sha.update(seed);
            sha.update(counter.putLong(0, i / 32).array());
            sha.digest(gen, i, 32);
        }
        byte[] in = Arrays.copyOf(gen, n + tail.length);
        System.arraycopy(tail, 0, in, n, tail.length);
        return in;
    }

    /** The optional "chunks" field: lengths of consecutive update calls, then the rest. */
    static List<Integer> chunks(Map<String, Object> req, Prim p, int n) throws Fail {
        Object v = req.get("chunks");
        if (v == null) return null;
        if (!(v instanceof List)) throw new Fail("field 'chunks' must be a list of byte counts");
        List<Integer> parts = new ArrayList<>();
        long sum = 0;
        for (Object o : (List<?>) v) {
            if (!(o instanceof Long) || (Long) o <= 0) throw new Fail("field 'chunks' must hold positive byte counts");
            long len = (Long) o;
            if (p.wholeBlocks && len % p.blockBytes != 0)
                throw new Fail(p.name + " takes whole " + p.blockBytes + "-byte blocks: chunk of " + len + " bytes");
            if (len > n - sum) throw new Fail("chunks add up to more than the " + n + "-byte input");
            sum += len;
            parts.add((int) len);
        }
        if (sum < n) parts.add((int) (n - sum));
        return parts;
    }

    Map<String, Object> hashOnce(Map<String, Object> req) throws Exception {
        Target t = target(req);
        if (!t.p.kind.equals("hash")) throw new Fail(t.p.name + " is not a hash: use encrypt/decrypt");
        byte[] in = unhex(req, "input", true);
        HashCtx h = t.impl.hash(t.p);
        h.update(in, 0, in.length);
        byte[] d = new byte[t.p.digestBytes];
        h.doFinal(d);
        Map<String, Object> r = ok();
        r.put("output", hex(d, 0, d.length));
        return r;
    }

    // ------------------------------------------------------------ timed batches
    /** Runs `loops` calls between two clock reads and returns the elapsed ns. */
    interface Batch {
        long run() throws Exception;
    }

    static void bump(byte[] iv) {  // next nonce: big-endian increment
        for (int j = iv.length - 1; j >= 0; j--)
            if (++iv[j] != 0) break;
    }

    Map<String, Object> bench(Map<String, Object> req) throws Exception {
        Target t = target(req);
        Prim p = t.p;
        Impl im = t.impl;
        String op = str(req, "operation", null), wl = str(req, "workload", "bulk");
        boolean ks = op.equals("keysetup") || op.equals("keysetup-decrypt");
        long size = count(req, "size", 0, !ks), loops = count(req, "loops", 0, true), batches = count(req, "batches", 1, false);
        if (loops == 0 || batches == 0) throw new Fail("loops and batches must be at least 1");
        if (batches > 100000) throw new Fail("at most 100000 batches per request");
        if (size > (1L << 30)) throw new Fail("size is limited to 1 GiB");
        long probe = probeThousands(req);
        // docs/protocol.md "bench": caps far above any calibrated batch, so an absurd count is
        // refused instead of running until the orchestrator's timeout
        if (loops > 1_000_000_000L) throw new Fail("loops must be at most 1000000000");
        if (loops * Math.max(size, 1) > (1L << 36)) throw new Fail("loops x size must be at most 2^36 bytes per batch");
        // docs/protocol.md `warmup_ms`: the orchestrator's warm-up for a new code path, this run
        long warmupMs = count(req, "warmup_ms", -1, false);
        if (warmupMs > 60000) throw new Fail("warmup_ms is limited to 60000");
        long baseWarmupNs = warmupMs >= 0 ? warmupMs * 1_000_000L : Main.warmupNs;
        if (!wl.equals("bulk") && !wl.equals("message") && !wl.equals("rekey"))
            throw new Fail("unknown workload '" + wl + "'; accepted: bulk, message, rekey");
        if (!List.of("encrypt", "decrypt", "decrypt-forged", "keysetup", "keysetup-decrypt", "hash").contains(op))
            throw new Fail("unknown operation '" + op + "'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash");
        byte[] key = new byte[0], iv = key, aad = key;
        if (p.kind.equals("hash")) {
            if (!op.equals("hash")) throw new Fail(p.name + " is a hash: operation must be 'hash'");
            if (wl.equals("rekey")) throw new Fail("hashes have no key: use workload bulk or message");
        } else {
            if (op.equals("hash")) throw new Fail(p.name + " is not a hash: operation 'hash' applies to hashes only");
            key = unhex(req, "key", false);
            iv = unhex(req, "iv", false);
            aad = unhex(req, "aad", false);
            checkLengths(p, key, iv, aad);
            if (!ks) checkInput(p, size);
            if (op.equals("decrypt-forged") && !p.aead()) throw new Fail("decrypt-forged applies to AEADs only");
            String refusal = im.benchRefusal(p, op, wl);
            if (refusal != null) throw new Unsupported(refusal);
        }
        long[] accepted = {0};
        Batch batch = prepare(im, p, op, wl, (int) size, loops, key, iv, aad, accepted);
        // JIT warm-up, first time this configuration is seen: the same code path with short
        // calls first (HotSpot compiles a method with its intrinsics after thousands of
        // invocations, which long calls take seconds to reach), then the real size.
        // The full warm-up runs once per code path (implementation, primitive, operation,
        // workload); a further size of the same path is already compiled and gets a tenth.
        String path = im.name() + "/" + p.name + "/" + op + "/" + wl;
        if (warmed.add(path + "/" + size)) {
            long warmupNs = warmedPaths.add(path) ? baseWarmupNs : baseWarmupNs / 10;
            long t0 = System.nanoTime();
            int small = (int) Math.min(size, 256);
            if (p.wholeBlocks && p.blockBytes > 0) small = Math.max(small - small % p.blockBytes, (int) Math.min(size, p.blockBytes));
            if (small < size) {
                Batch b = prepare(im, p, op, wl, small, 1000, key, iv, aad, accepted);
                for (int calls = 0; calls < 40000 && System.nanoTime() - t0 < warmupNs / 2; calls += 1000) b.run();
            }
            // Then the real size: at least warmupNs in all, and on (up to 10 x warmupNs) until
            // the fastest of the last three batches is within 10 % of the fastest seen. A rule on
            // the last batch alone ran to the cap on a shared core, where one batch in a few is
            // slow for reasons of the neighbour's: 18.6 s of the quick profile's 114 s of timing
            // went to 70 calibrations.
            long best = Long.MAX_VALUE;
            long[] recent = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
            int k = 0;
            do {
                long last = batch.run();
                best = Math.min(best, last);
                recent[k++ % recent.length] = last;
            } while (System.nanoTime() - t0 < warmupNs
                    || (Math.min(recent[0], Math.min(recent[1], recent[2])) > best + best / 10
                        && System.nanoTime() - t0 < 10 * warmupNs));
        }
        accepted[0] = 0;
        List<Object> ns = new ArrayList<>();
        // the core read before the first batch and after each, outside the timed interval
        long[] probes = probe > 0 ? new long[Probe.STRIDE * (int) (batches + 1)] : null;
        if (probes != null) Probe.take(probe, probes, 0);
        for (long b = 0; b < batches; b++) {
            ns.add(batch.run());
            if (probes != null) Probe.take(probe, probes, Probe.STRIDE * (int) (b + 1));
        }
        if (p.aead() && (op.equals("decrypt") || op.equals("decrypt-forged")) && !wl.equals("bulk")) {
            boolean forged = op.equals("decrypt-forged");
            long total = loops * batches, expect = forged ? 0 : total;
            if (accepted[0] != expect)
                throw new Fail(p.name + ": " + accepted[0] + " of " + total
                        + (forged ? " forged messages were accepted" : " valid messages were accepted"));
        }
        Map<String, Object> r = ok();
        r.put("ns", ns);
        r.put("tsc", null);
        r.put("core_cycles", null);
        if (probes != null) putProbes(r, probe, probes);
        return r;
    }

    /** The request's `probe` (docs/protocol.md, "bench"): thousands of additions per reading,
     *  0 when absent, null or 0, and when this runner could not load the probe (Probe.LOADED). */
    static long probeThousands(Map<String, Object> req) throws Fail {
        long k = req.get("probe") == null ? 0 : count(req, "probe", 0, false);
        if (k > 100000) throw new Fail("probe must be in 0..100000");
        return Probe.LOADED ? k : 0;
    }

    /** The readings of a probed request: probe_cycles, and probe_ns, probe_parallel_ns and
     *  (where every reading counted them) probe_switches in the order taken, from probes'
     *  (serial, parallel, switches) triples (Probe.take). */
    static void putProbes(Map<String, Object> r, long probe, long[] probes) {
        List<Long> serial = new ArrayList<>(), parallel = new ArrayList<>(), switches = new ArrayList<>();
        for (int i = 0; i < probes.length; i += Probe.STRIDE) {
            serial.add(probes[i]);
            parallel.add(probes[i + 1]);
            if (probes[i + 2] >= 0) switches.add(probes[i + 2]);
        }
        r.put("probe_cycles", probe * 1000);
        r.put("probe_ns", serial);
        r.put("probe_parallel_ns", parallel);
        if (switches.size() == serial.size()) r.put("probe_switches", switches);
    }

    /** Everything a batch needs for messages of n bytes, made before any clock read. */
    Batch prepare(Impl im, Prim p, String op, String wl, int n, long loops, byte[] key, byte[] iv, byte[] aad,
                  long[] accepted) throws Exception {
        final byte[] buf = new byte[Math.max(n, 1)];
        for (int i = 0; i < buf.length; i++) buf[i] = (byte) i;
        if (p.kind.equals("hash")) {
            final HashCtx h = im.hash(p);
            final byte[] d = new byte[p.digestBytes];
            if (wl.equals("bulk")) return () -> {
                h.reset();
                long t0 = System.nanoTime();
                for (long i = 0; i < loops; i++) h.update(buf, 0, n);
                long t1 = System.nanoTime();
                h.doFinal(d);
                return t1 - t0;
            };
            return () -> {
                long t0 = System.nanoTime();
                for (long i = 0; i < loops; i++) { h.update(buf, 0, n); h.doFinal(d); }
                return System.nanoTime() - t0;
            };
        }
        // Key setup (keysetup, rekey) alternates between the key and the key with its last
        // byte complemented, and decryption of whole messages alternates between two nonces
        // (the IV with its last byte complemented): SunJCE keeps the last expanded key per
        // Cipher and skips the key schedule when the same key bytes come again, and SunJCE
        // (GCM, ChaCha20) and BC (GCM, OCB, EAX, ChaCha20-Poly1305) refuse an init that repeats
        // the previous key and nonce. A counter that runs on across batches picks the pair.
        final byte[] key2 = key.clone(), iv2 = iv.clone();
        if (key2.length > 0) key2[key2.length - 1] ^= (byte) 0xff;
        if (iv2.length > 0) iv2[iv2.length - 1] ^= (byte) 0xff;
        final byte[][] keys = {key, key2}, ivs = {iv, iv2};
        final boolean enc = op.equals("encrypt") || op.equals("keysetup");
        final boolean rekey = wl.equals("rekey"), forged = op.equals("decrypt-forged");
        final byte[] out = new byte[n + p.tagBytes + 64];
        final long[] seq = {0};

        if (op.startsWith("keysetup")) {
            final Ctx c = im.ctx(p);
            return () -> {
                long t0 = System.nanoTime();
                for (long i = 0; i < loops; i++) c.init(enc, keys[(int) (seq[0]++ & 1)], iv, aad);
                return System.nanoTime() - t0;
            };
        }
        // Decryption of an AEAD opens valid messages made before the clock starts: msgs[k]
        // is sealed under ivs[k] and (rekey) keys[k] or (otherwise) the key.
        final byte[][] msgs = new byte[2][];
        final int mlen = p.aead() && !enc ? n + p.tagBytes : n;
        final boolean aeadOpen = p.aead() && !enc;
        if (aeadOpen) {
            for (int k = 0; k < 2; k++) {
                Ctx e = im.ctx(p);
                e.init(true, keys[rekey ? k : 0], wl.equals("bulk") ? iv : ivs[k], aad);
                byte[] m = new byte[n + p.tagBytes + 64];
                if (e.process(buf, 0, n, m, 0) != n + p.tagBytes) throw new Fail(p.name + ": sealing returned a wrong length");
                if (forged) m[n] ^= 1;
                msgs[k] = m;
            }
        } else {
            msgs[0] = msgs[1] = buf;
        }
        if (wl.equals("bulk")) {
            // One keyed context per batch (fresh, so SunJCE's GCM and ChaCha20 accept the
            // nonce again), streaming update() calls; AEAD decryption is not tag-checked.
            return () -> {
                Ctx c = im.ctx(p);
                c.init(enc, key, iv, aad);
                long t0 = System.nanoTime();
                for (long i = 0; i < loops; i++) c.update(msgs[0], 0, n, out, 0);
                return System.nanoTime() - t0;
            };
        }
        // Encryption moves to the next nonce per message; decryption alternates between the
        // two prepared messages. message: restart (IV/nonce only); rekey: full init.
        final boolean bumpIv = enc && p.ivBytes > 0;
        final Ctx c = im.ctx(p);
        c.init(enc, key, iv2, aad);  // differs from the first timed message's nonce
        final byte[] niv = iv.clone();
        return () -> {
            long t0 = System.nanoTime();
            for (long i = 0; i < loops; i++) {
                int k = (int) (seq[0]++ & 1);
                byte[] v = enc ? niv : ivs[k];
                if (rekey) c.init(enc, keys[k], v, aad);
                else c.restart(enc, v, aad);
                if (aeadOpen) {
                    try {
                        c.process(msgs[k], 0, mlen, out, 0);
                        accepted[0]++;
                    } catch (AuthFail e) { /* counted by the caller */ }
                } else {
                    c.process(msgs[k], 0, mlen, out, 0);
                }
                if (bumpIv) bump(niv);
            }
            return System.nanoTime() - t0;
        };
    }

    // ------------------------------------------------------------ main loop
    public static void main(String[] args) throws Exception {
        String w = System.getenv("CIPHERBENCH_WARMUP_MS");
        if (w != null && w.matches("[0-9]{1,9}")) warmupNs = Long.parseLong(w) * 1_000_000L;
        Path reg = Path.of(args.length > 0 ? args[0] : "registry.json");
        if (!Files.isReadable(reg)) {
            System.err.println("cipherbench java runner: " + reg + " is missing: run runners/java/build.sh");
            System.exit(2);
        }
        Main m = new Main(reg);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        PrintStream out = new PrintStream(new BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16), false, StandardCharsets.UTF_8);
        System.setOut(new PrintStream(System.err, true));  // nothing else may reach stdout
        String line;
        while ((line = in.readLine()) != null) {
            Object id = null;
            Map<String, Object> resp;
            try {
                // every line is answered, a blank one too (docs/protocol.md)
                if (line.isBlank()) throw new Fail("blank line: a request must be a JSON object");
                Object req;
                try {
                    req = Json.parse(line);
                } catch (IllegalArgumentException e) {
                    throw new Fail("malformed request: not JSON (" + e.getMessage() + ")");
                }
                if (!(req instanceof Map)) throw new Fail("a request must be a JSON object");
                @SuppressWarnings("unchecked") Map<String, Object> r = (Map<String, Object>) req;
                // a number id beyond a double (1e999) would be echoed as text most parsers read as
                // an infinity: refused, as docs/protocol.md says
                if (r.get("id") instanceof Number && Double.isInfinite(((Number) r.get("id")).doubleValue()))
                    throw new Fail("malformed request: id is a number out of range");
                id = r.get("id");
                if ("quit".equals(r.get("op"))) break;
                resp = m.handle(r);
            } catch (Unsupported e) {
                resp = new LinkedHashMap<>();
                resp.put("status", "unsupported");
                resp.put("message", e.getMessage());
            } catch (Fail e) {
                resp = new LinkedHashMap<>();
                resp.put("status", "error");
                resp.put("message", e.getMessage());
            } catch (Throwable e) {
                resp = new LinkedHashMap<>();
                resp.put("status", "error");
                resp.put("message", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            resp.put("id", id);
            out.print(Json.write(resp));
            out.print('\n');
            out.flush();
        }
        out.flush();
        System.exit(0);
    }
}

/** JSON through Jackson (pom.xml): objects become LinkedHashMap, arrays ArrayList, integers
 *  Long (BigInteger past a long), other numbers BigDecimal, so an id is echoed with its digits.
 *  Strict: one value per line and nothing after it, no comments, no leading zeros, no NaN, at
 *  most 512 levels deep; characters outside ASCII are written as escapes. */
final class Json {
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    // a string as long as a line may be (Jackson's default stops at 20 M characters)
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(512)
                            .maxStringLength(Integer.MAX_VALUE).build())
                    .build())
            .enable(DeserializationFeature.USE_LONG_FOR_INTS, DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS,
                    DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .build();

    private Json() {}

    /** The value of one JSON text; IllegalArgumentException says what is wrong with it. */
    static Object parse(String s) {
        try {
            return MAPPER.readValue(s, Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e.getOriginalMessage());
        }
    }

    static String write(Object v) {
        try {
            return MAPPER.writeValueAsString(v);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a response as JSON: " + e.getOriginalMessage(), e);
        }
    }
}
