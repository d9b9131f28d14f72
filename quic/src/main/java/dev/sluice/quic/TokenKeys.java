package dev.sluice.quic;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-128 keys that seal Retry tokens, rotated every {@link #period} milliseconds: tokens are sealed with
 * the current epoch's key and accepted under it or the previous one (a token lives 10 s; the period is much
 * longer). The keys are derived from {@link Secrets}, so processes sharing {@code cluster-secret} agree on them
 * without talking. {@link #rotate} runs on a timer; readers take the published pair through one volatile read.
 * Thread-safe.
 */
public final class TokenKeys {
    /** How long one key seals tokens. */
    public static final long DEFAULT_PERIOD_MS = TimeUnit.HOURS.toMillis(1);

    /** A key with its epoch (only the low 8 bits travel in the token). */
    record Key(long epoch, SecretKey key) {
    }

    /** The current and the previous key, published together. */
    record Pair(Key current, Key previous) {
        Key find(int epochByte) {
            if ((current.epoch & 0xff) == epochByte) {
                return current;
            }
            return (previous.epoch & 0xff) == epochByte ? previous : null;
        }
    }

    private final Secrets secrets;
    private final long period;
    private final LongSupplier clock;
    private volatile Pair pair;

    public TokenKeys(Secrets secrets) {
        this(secrets, DEFAULT_PERIOD_MS, System::currentTimeMillis);
    }

    TokenKeys(Secrets secrets, long periodMs, LongSupplier clock) {
        this.secrets = secrets;
        this.period = periodMs;
        this.clock = clock;
        rotate();
    }

    private Key key(long epoch) {
        return new Key(epoch, new SecretKeySpec(secrets.derive("sluice quic retry token", epoch), "AES"));
    }

    /** Publishes the keys of the current epoch (a no-op when it has not changed). */
    public void rotate() {
        long epoch = clock.getAsLong() / period;
        Pair p = pair;
        if (p != null && p.current.epoch == epoch) {
            return;
        }
        pair = new Pair(key(epoch), p != null && p.current.epoch == epoch - 1 ? p.current : key(epoch - 1));
    }

    /** Milliseconds until the next epoch starts (when {@link #rotate} should run again). */
    public long untilNextRotation() {
        long now = clock.getAsLong();
        return period - now % period;
    }

    Pair pair() {
        return pair;
    }

    long now() {
        return clock.getAsLong();
    }
}
