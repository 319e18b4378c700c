// SPDX-License-Identifier: ISC
// Java's SunPKCS11 provider over the p256sign PKCS#11 module, run with the JDK's single-file
// source launcher (java P11Sign.java CONFIG OUTDIR), no build step. It opens the module's token as
// a PKCS11 KeyStore with any PIN, lists its aliases (a PrivateKeyEntry per key with a
// certificate), signs with the rfc key (SHA256withECDSA over a message, NONEwithECDSA over its
// SHA-256 digest) and verifies each signature with the certificate's public key in Java's own EC
// provider; it writes the message, the digest, both signatures (DER) and the certificate to
// OUTDIR for openssl to check, and tries the web key (tls-server), which must be refused. Prints
// one "key: value" line per finding and exits 1 at the first failed check.
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.Security;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class P11Sign {
    static void check(boolean cond, String what) {
        if (!cond) {
            System.out.println("FAIL: " + what);
            System.exit(1);
        }
    }

    static byte[] sign(Provider p, String alg, PrivateKey key, byte[] data) throws Exception {
        Signature s = Signature.getInstance(alg, p);
        s.initSign(key);
        s.update(data);
        return s.sign();
    }

    static boolean verify(String alg, X509Certificate cert, byte[] data, byte[] sig)
            throws Exception {
        Signature v = Signature.getInstance(alg, "SunEC");
        v.initVerify(cert.getPublicKey());
        v.update(data);
        return v.verify(sig);
    }

    public static void main(String[] args) throws Exception {
        Provider p = Security.getProvider("SunPKCS11").configure(args[0]);
        Path out = Path.of(args[1]);
        Security.addProvider(p);
        KeyStore ks = KeyStore.getInstance("PKCS11", p);
        ks.load(null, "any PIN".toCharArray());
        List<String> aliases = new ArrayList<>(Collections.list(ks.aliases()));
        Collections.sort(aliases);
        System.out.println("aliases: " + String.join(",", aliases));
        for (String a : aliases)
            check(ks.entryInstanceOf(a, KeyStore.PrivateKeyEntry.class), a + " is a key entry");

        PrivateKey key = (PrivateKey) ks.getKey("rfc", null);
        X509Certificate cert = (X509Certificate) ks.getCertificate("rfc");
        check(key != null && cert != null, "rfc's key and certificate");
        System.out.println("key algorithm: " + key.getAlgorithm());
        System.out.println("subject: " + cert.getSubjectX500Principal().getName());
        Files.write(out.resolve("java-cert.der"), cert.getEncoded());

        byte[] msg = "a message signed through Java's SunPKCS11\n".getBytes("UTF-8");
        byte[] sig = sign(p, "SHA256withECDSA", key, msg);
        check(verify("SHA256withECDSA", cert, msg, sig), "SHA256withECDSA verifies in Java");
        Files.write(out.resolve("java-msg.txt"), msg);
        Files.write(out.resolve("java-sha256.sig"), sig);
        System.out.println("SHA256withECDSA: verified");

        byte[] digest = MessageDigest.getInstance("SHA-256").digest(msg);
        byte[] raw = sign(p, "NONEwithECDSA", key, digest);
        check(verify("NONEwithECDSA", cert, digest, raw), "NONEwithECDSA verifies in Java");
        Files.write(out.resolve("java-digest.bin"), digest);
        Files.write(out.resolve("java-none.sig"), raw);
        System.out.println("NONEwithECDSA: verified");

        // A tls-server key signs TLS handshakes only: Java's data is neither.
        PrivateKey web = (PrivateKey) ks.getKey("web", null);
        check(web != null, "web's key");
        try {
            sign(p, "SHA256withECDSA", web, msg);
            check(false, "the tls-server key signed Java's message");
        } catch (Exception e) {
            System.out.println("web: refused: " + e.getClass().getName() + ": " + e.getMessage());
        }
        System.out.println("ok");
    }
}
