package dev.sluice.proxy.tls;

import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The keys that encrypt TLS session tickets, generated at start-up and shared by every server context of
 * the process (BoringSSL only), so that a ticket issued on one bind resumes on another bind with the same
 * TLS settings. The first key encrypts new tickets; the others still decrypt older ones. {@link #rotate}
 * (not scheduled yet) puts a fresh key first and keeps {@value #KEPT} in all, as HAProxy's
 * {@code tls-ticket-keys} rotation does. Thread-safe: installed at start-up, rotated from any thread.
 */
public final class SessionTicketKeys {
    /** Keys kept after a rotation: the encrypting one and the ones before it. */
    static final int KEPT = 3;

    private static final SessionTicketKeys SHARED = new SessionTicketKeys(new SecureRandom());

    private final SecureRandom random;
    private final List<OpenSslSessionContext> contexts = new CopyOnWriteArrayList<>();
    private OpenSslSessionTicketKey[] keys;

    SessionTicketKeys(SecureRandom random) {
        this.random = random;
        this.keys = new OpenSslSessionTicketKey[] {newKey()};
    }

    /** The keys of this process. */
    public static SessionTicketKeys shared() {
        return SHARED;
    }

    private OpenSslSessionTicketKey newKey() {
        byte[] name = new byte[OpenSslSessionTicketKey.NAME_SIZE];
        byte[] hmac = new byte[OpenSslSessionTicketKey.HMAC_KEY_SIZE];
        byte[] aes = new byte[OpenSslSessionTicketKey.AES_KEY_SIZE];
        random.nextBytes(name);
        random.nextBytes(hmac);
        random.nextBytes(aes);
        return new OpenSslSessionTicketKey(name, hmac, aes);
    }

    /** Turns tickets on for {@code context} with the current keys, and keeps it for later rotations. */
    public synchronized void install(OpenSslSessionContext context) {
        context.setTicketKeys(keys);
        contexts.add(context);
    }

    /** Forgets {@code context} (its owner is discarded); the context keeps the keys it has. */
    public void remove(OpenSslSessionContext context) {
        contexts.remove(context);
    }

    /** Puts a new encrypting key first and applies the new set to every installed context. */
    public synchronized void rotate() {
        OpenSslSessionTicketKey[] next = new OpenSslSessionTicketKey[Math.min(KEPT, keys.length + 1)];
        next[0] = newKey();
        System.arraycopy(keys, 0, next, 1, next.length - 1);
        keys = next;
        for (OpenSslSessionContext c : contexts) {
            c.setTicketKeys(keys);
        }
    }

    /** The names of the current keys, encrypting key first (for tests and diagnostics). */
    public synchronized List<byte[]> keyNames() {
        return Arrays.stream(keys).map(OpenSslSessionTicketKey::name).toList();
    }

    int installedContexts() {
        return contexts.size();
    }
}
