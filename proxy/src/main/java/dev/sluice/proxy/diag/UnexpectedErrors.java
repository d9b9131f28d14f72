package dev.sluice.proxy.diag;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http3.Http3Exception;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reports an exception that reached a connection handler and is not what the network or a peer causes (a reset, a
 * TLS alert, a peer's HTTP/2, HTTP/3 or QUIC protocol error): that is a bug of Sluice's, and the connection handlers
 * close the connection and keep the process serving, so without this report nobody would hear of it.
 * <p>
 * Under the system property {@code sluice.reportUnexpected=true} (set by the regtests, which fail a test whose daemon
 * printed one) every such exception is printed with its stack trace, behind {@value #MARK}. Otherwise the first one
 * of each kind from each place is printed as one warning line, so that a fault a client can trigger at will cannot
 * fill the log. Any thread may call it.
 */
public final class UnexpectedErrors {
    /** What starts each full report on the standard error stream. */
    public static final String MARK = "[UNEXPECTED]";

    private static final boolean FULL = Boolean.getBoolean("sluice.reportUnexpected");
    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    private UnexpectedErrors() {
    }

    /**
     * Reports {@code cause}, seen by {@code where} (a class name is enough), unless it is one of the exceptions the
     * network or a peer causes.
     */
    public static void report(String where, Throwable cause) {
        if (expected(cause)) {
            return;
        }
        PrintStream err = System.err;
        if (FULL) {
            synchronized (err) {
                err.println(MARK + " " + where + ": " + cause);
                cause.printStackTrace(err);
            }
        } else if (SEEN.add(where + '/' + cause.getClass().getName())) {
            err.println("[WARNING] unexpected " + cause + " in " + where + " (the connection was closed; further ones"
                    + " of this kind there are not reported)");
        }
    }

    /** Whether {@code cause}, or one of its causes, is an I/O error or a peer's protocol error. */
    static boolean expected(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // IOException covers resets, closed channels and TLS (SSLException)
            if (t instanceof IOException || t instanceof Http2Exception || t instanceof Http3Exception
                    || t instanceof QuicException || t instanceof NotSslRecordException) {
                return true;
            }
            // a codec's own complaint about the bytes it read; one that wraps another exception wrapped a fault
            if (t instanceof DecoderException && t.getCause() == null) {
                return true;
            }
        }
        return false;
    }
}
