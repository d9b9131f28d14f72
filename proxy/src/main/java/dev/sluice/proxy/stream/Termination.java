package dev.sluice.proxy.stream;

/**
 * How an exchange ended: HAProxy's two termination flags of the log ({@code %ts}, e.g. "SD", "cD", "--"), the
 * {@link Cause} first, then the {@link State} the exchange was in. A stream owns one and sets it where the outcome is
 * decided, on its event loop; the log line reads it there.
 */
public final class Termination {

    /** The first flag: what ended the exchange ({@code -} when it ended normally). */
    public enum Cause {
        NONE('-'),
        /** The client aborted (closed or reset). */
        CLIENT_ABORT('C'),
        /** The server aborted, refused or failed, or none could be reached. */
        SERVER_ABORT('S'),
        /** The proxy stopped it: a rule denied it, or a protocol error. */
        PROXY('P'),
        /** The proxy answered locally (redirect, return, a service, the stats page). */
        LOCAL('L'),
        /** A resource of the proxy ran out (memory, sockets, ...). */
        RESOURCE('R'),
        /** An internal error of the proxy. */
        INTERNAL('I'),
        /** The server went down and its sessions were shut down. */
        SERVER_DOWN('D'),
        /** A server of higher priority came up and took the sessions. */
        SERVER_UP('U'),
        /** Killed by the administrator ({@code shutdown session}). */
        KILLED('K'),
        /** {@code timeout client} (or {@code http-request}) expired. */
        CLIENT_TIMEOUT('c'),
        /** {@code timeout server} (or {@code queue}, {@code connect}) expired. */
        SERVER_TIMEOUT('s');

        private final char letter;

        Cause(char letter) {
            this.letter = letter;
        }

        /** HAProxy's letter for this cause. */
        public char letter() {
            return letter;
        }

        /** The cause of HAProxy's letter {@code c} (what rule actions name), or an error for an unknown one. */
        public static Cause of(char c) {
            for (Cause x : values()) {
                if (x.letter == c) {
                    return x;
                }
            }
            throw new IllegalArgumentException("no termination cause '" + c + "'");
        }

        @Override
        public String toString() {
            return String.valueOf(letter);
        }
    }

    /** The second flag: where the exchange was when it ended ({@code -} for a normal end). */
    public enum State {
        NONE('-'),
        /** Waiting for (or processing) the request. */
        REQUEST('R'),
        /** Waiting in a queue for a server slot. */
        QUEUE('Q'),
        /** Connecting to the server. */
        CONNECT('C'),
        /** Waiting for the response head. */
        HEADERS('H'),
        /** Transferring the response body (or a tunnel). */
        DATA('D'),
        /** Sending the last data to the client. */
        LAST('L'),
        /** Held in the tarpit. */
        TARPIT('T');

        private final char letter;

        State(char letter) {
            this.letter = letter;
        }

        /** HAProxy's letter for this state. */
        public char letter() {
            return letter;
        }

        @Override
        public String toString() {
            return String.valueOf(letter);
        }
    }

    private Cause cause = Cause.NONE;
    private State state = State.NONE;

    /** The one place the outcome is decided: both flags at once. */
    void set(Cause cause, State state) {
        this.cause = cause;
        this.state = state;
    }

    public Cause cause() {
        return cause;
    }

    public State state() {
        return state;
    }

    /** The two letters, as the log prints them. */
    @Override
    public String toString() {
        return new String(new char[] {cause.letter, state.letter});
    }
}
