// Implementation "sunjce": the JDK's SunJCE Cipher and SUN MessageDigest providers,
// through javax.crypto.Cipher / java.security.MessageDigest.
package cipherbench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.spec.AlgorithmParameterSpec;
import java.util.List;
import java.util.Map;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.RC2ParameterSpec;
import javax.crypto.spec.SecretKeySpec;

final class SunJceImpl extends Main.Impl {
    // ------------------------------------------------------------ the mapping table
    // family, JCA algorithm, key bits offered, registry mode = JCA mode
    // ("CFB" is full-block feedback in SunJCE, "CFB8" 8-bit; CTR counts over the whole block).
    static final String[][] BLOCK = {
        {"aes", "AES", "128 192 256", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR gcm=GCM"},
        {"des", "DES", "56", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR"},
        {"3des", "DESede", "112 168", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR"},
        {"blowfish", "Blowfish", "128 448", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR"},
        {"rc2", "RC2", "128", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR"},       // RC2ParameterSpec(128): 128 effective bits
        {"rc2e1024", "RC2", "128", "ecb=ECB cbc=CBC cfb=CFB cfb8=CFB8 ofb=OFB ctr=CTR"},  // RC2ParameterSpec(1024)
    };
    // canonical name, JCA transformation
    static final String[][] OTHER = {
        {"chacha20", "ChaCha20"},                    // ChaCha20ParameterSpec(nonce, counter 0)
        {"chacha20-poly1305", "ChaCha20-Poly1305"},
        {"rc4", "ARCFOUR"},
    };
    // canonical name, SUN MessageDigest algorithm
    static final String[][] DIGESTS = {
        {"md2", "MD2"}, {"md5", "MD5"}, {"sha-1", "SHA-1"}, {"sha-224", "SHA-224"}, {"sha-256", "SHA-256"},
        {"sha-384", "SHA-384"}, {"sha-512", "SHA-512"}, {"sha-512-256", "SHA-512/256"},
        {"sha3-224", "SHA3-224"}, {"sha3-256", "SHA3-256"}, {"sha3-384", "SHA3-384"}, {"sha3-512", "SHA3-512"},
    };

    final Map<String, Main.Prim> reg;
    final java.util.Map<String, String> jca = new java.util.HashMap<>();  // canonical -> transformation / digest

    SunJceImpl(Map<String, Main.Prim> reg) {
        this.reg = reg;
        for (String[] b : BLOCK)
            for (String kb : b[2].split(" "))
                for (String mm : b[3].split(" ")) {
                    String[] m = mm.split("=");
                    candidate(b[0] + "-" + kb + "-" + m[0], b[1] + "/" + m[1] + "/NoPadding");
                }
        for (String[] o : OTHER) candidate(o[0], o[1]);
        for (String[] d : DIGESTS) {
            if (!reg.containsKey(d[0])) continue;
            try {
                MessageDigest.getInstance(d[1], "SUN").digest(new byte[3]);
                jca.put(d[0], d[1]);
                offers.put(d[0], "SUN MessageDigest " + d[1] + " (" + digestEngine(d[0]) + ")");
                List<String> f = digestFeatures(d[0]);
                if (f != null) features.put(d[0], f);
            } catch (Exception e) {
                System.err.println("sunjce: " + d[0] + " left out: " + e);
            }
        }
        notes.put("java.home", System.getProperty("java.home"));
        notes.put("intrinsics", "UseAESIntrinsics=" + flag("UseAESIntrinsics") + " UseAESCTRIntrinsics=" + flag("UseAESCTRIntrinsics")
                + " UseGHASHIntrinsics=" + flag("UseGHASHIntrinsics") + " UseSHA1Intrinsics=" + flag("UseSHA1Intrinsics")
                + " UseSHA256Intrinsics=" + flag("UseSHA256Intrinsics") + " UseSHA512Intrinsics=" + flag("UseSHA512Intrinsics")
                + " UseSHA3Intrinsics=" + flag("UseSHA3Intrinsics") + " UseMD5Intrinsics=" + flag("UseMD5Intrinsics"));
    }

    private void candidate(String name, String transformation) {
        Main.Prim p = reg.get(name);
        if (p == null) return;
        try {
            jca.put(name, transformation);
            Main.Ctx c = ctx(p);  // it must really work: one encryption at start-up
            byte[] key = new byte[p.keyBytes];
            for (int i = 0; i < key.length; i++) key[i] = (byte) (0x11 * (i + 1) + i / 8);
            c.init(true, key, new byte[p.ivBytes], new byte[0]);
            c.process(new byte[16], 0, 16, new byte[64], 0);
        } catch (Exception e) {
            jca.remove(name);
            System.err.println("sunjce: " + name + " left out: " + e);
            return;
        }
        String what;
        boolean aesIntrinsic = flag("UseAESIntrinsics").equals("true") && cpu("aes");
        if (p.family.equals("aes"))
            what = aesIntrinsic ? "AES-NI via HotSpot intrinsics" : "Java code, no AES intrinsic";
        else what = "Java code";
        boolean ghash = p.mode.equals("gcm") && flag("UseGHASHIntrinsics").equals("true");
        if (ghash) what += ", GHASH intrinsic (PCLMULQDQ)";
        List<String> f;
        if (!p.family.equals("aes")) f = List.of("portable");
        else if (!aesIntrinsic) f = p.mode.equals("gcm") && ghash ? List.of("pclmul") : List.of("portable");
        else if (vectorAes()) {  // JDK 17's VAES stubs serve CTR, ECB, CBC decryption and GCM: not one list per primitive
            what += "; AVX-512 VAES stubs where HotSpot has them for the mode and direction";
            f = null;
        } else f = ghash ? List.of("aes-ni", "pclmul") : List.of("aes-ni");
        if (p.aead()) what += "; message/rekey: Cipher.init per message (SunJCE refuses a repeated key and nonce)";
        offers.put(name, "SunJCE " + transformation + " (" + what + ")");
        if (f != null) features.put(name, f);
    }

    /** HotSpot generates its AVX-512 VAES AES stubs (JDK 17 stubGenerator_x86_64) where it uses
     * AVX-512 (UseAVX=3) on a CPU with VAES, AVX512BW and AVX512VL. */
    private static boolean vectorAes() {
        return flag("UseAVX").equals("3") && cpu("vaes") && cpu("avx512bw") && cpu("avx512vl");
    }

    /** The features of a digest's path (docs/protocol.md, features), as digestEngine words it; null: unknown. */
    private static List<String> digestFeatures(String name) {
        String e = digestEngine(name);
        if (e.equals("Java code")) return List.of("portable");
        if (e.endsWith("SHA-NI")) return List.of("sha-ni");
        if (e.endsWith("AVX2")) return List.of("avx2");
        if (e.endsWith("(assembly)")) return List.of("asm");
        return null;
    }

    private static String digestEngine(String name) {
        String f = switch (name) {
            case "md2" -> "none";
            case "md5" -> "UseMD5Intrinsics";
            case "sha-1" -> "UseSHA1Intrinsics";
            case "sha-224", "sha-256" -> "UseSHA256Intrinsics";
            case "sha-384", "sha-512", "sha-512-256" -> "UseSHA512Intrinsics";
            default -> "UseSHA3Intrinsics";
        };
        if (!flag(f).equals("true")) return "Java code";
        if (name.equals("sha-1") || name.equals("sha-224") || name.equals("sha-256"))
            return cpu("sha_ni") ? "HotSpot intrinsic, SHA-NI" : "HotSpot intrinsic, AVX2";
        if (f.equals("UseSHA512Intrinsics") && cpu("avx2")) return "HotSpot intrinsic, AVX2";  // x86-64's only SHA-512 stub
        if (f.equals("UseMD5Intrinsics") && System.getProperty("os.arch").equals("amd64")) return "HotSpot intrinsic (assembly)";
        return "HotSpot intrinsic";
    }

    /** A HotSpot flag (diagnostic flags need -XX:+UnlockDiagnosticVMOptions, which `run` passes). */
    static String flag(String name) {
        try {
            return ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption(name).getValue();
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static String cpuFlags;

    static boolean cpu(String flag) {
        if (cpuFlags == null) {
            cpuFlags = " ";
            try {
                for (String l : Files.readAllLines(Path.of("/proc/cpuinfo")))
                    if (l.startsWith("flags")) { cpuFlags = " " + l.substring(l.indexOf(':') + 1).trim() + " "; break; }
            } catch (Exception e) { /* not Linux: unknown */ }
        }
        return cpuFlags.contains(" " + flag + " ");
    }

    @Override String name() { return "sunjce"; }
    @Override String library() { return "SunJCE / SUN providers of " + System.getProperty("java.vm.name"); }
    @Override String version() { return "JDK " + Runtime.version(); }

    @Override
    String benchRefusal(Main.Prim p, String op, String workload) {
        if (p.aead() && workload.equals("bulk") && !op.equals("encrypt") && !op.startsWith("keysetup"))
            return "SunJCE releases no " + p.name + " plaintext before the tag check: decryption buffers the whole message, so there is no bulk decryption to time";
        return null;
    }

    @Override
    Main.Ctx ctx(Main.Prim p) throws Exception {
        return new JceCtx(p, Cipher.getInstance(jca.get(p.name), "SunJCE"));
    }

    @Override
    Main.HashCtx hash(Main.Prim p) throws Exception {
        final MessageDigest md = MessageDigest.getInstance(jca.get(p.name), "SUN");
        return new Main.HashCtx() {
            void reset() { md.reset(); }
            void update(byte[] in, int off, int len) { md.update(in, off, len); }
            int doFinal(byte[] out) {
                try {
                    return md.digest(out, 0, out.length);
                } catch (java.security.DigestException e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    static final class JceCtx extends Main.Ctx {
        final Main.Prim p;
        final Cipher c;
        final String keyAlg;
        SecretKeySpec key;

        JceCtx(Main.Prim p, Cipher c) {
            this.p = p;
            this.c = c;
            String alg = c.getAlgorithm();
            int slash = alg.indexOf('/');
            keyAlg = slash < 0 ? alg : alg.substring(0, slash);
        }

        private AlgorithmParameterSpec spec(byte[] iv) {
            if (p.mode.equals("gcm")) return new GCMParameterSpec(8 * p.tagBytes, iv);
            if (p.name.equals("chacha20")) return new ChaCha20ParameterSpec(iv, 0);
            if (p.family.startsWith("rc2")) {  // effective key bits: rc2 = key bits (128), rc2e1024 = 1024
                int eff = p.family.equals("rc2") ? 8 * p.keyBytes : 1024;
                return iv.length > 0 ? new RC2ParameterSpec(eff, iv) : new RC2ParameterSpec(eff);
            }
            return iv.length > 0 ? new IvParameterSpec(iv) : null;
        }

        @Override
        void init(boolean enc, byte[] k, byte[] iv, byte[] aad) throws Exception {
            if (p.name.startsWith("3des-112-")) {  // two-key EDE: SunJCE takes K1 K2 K1
                byte[] k3 = new byte[24];
                System.arraycopy(k, 0, k3, 0, 16);
                System.arraycopy(k, 0, k3, 16, 8);
                k = k3;
            }
            key = new SecretKeySpec(k, keyAlg);
            AlgorithmParameterSpec s = spec(iv);
            if (s == null) c.init(enc ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, key);
            else c.init(enc ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, key, s);
            if (aad.length > 0) c.updateAAD(aad);
        }

        @Override
        void restart(boolean enc, byte[] iv, byte[] aad) throws Exception {
            if (p.mode.equals("ecb")) return;  // after doFinal the Cipher is ready for the next message
            // Cipher.init is the only way to set an IV; SunJCE keeps the expanded key when the
            // key bytes repeat, so this is an IV change (for GCM it also recomputes H).
            AlgorithmParameterSpec s = spec(iv);
            if (s == null) c.init(enc ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, key);  // RC4: restarts the key stream
            else c.init(enc ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE, key, s);
            if (aad.length > 0) c.updateAAD(aad);
        }

        @Override
        int update(byte[] in, int off, int len, byte[] out, int outOff) throws Exception {
            return c.update(in, off, len, out, outOff);
        }

        @Override
        int finish(byte[] out, int outOff) throws Exception {
            try {
                return c.doFinal(out, outOff);
            } catch (AEADBadTagException e) {
                throw new Main.AuthFail();
            }
        }

        @Override
        int process(byte[] in, int off, int len, byte[] out, int outOff) throws Exception {
            try {
                return c.doFinal(in, off, len, out, outOff);
            } catch (AEADBadTagException e) {
                throw new Main.AuthFail();
            }
        }
    }
}
