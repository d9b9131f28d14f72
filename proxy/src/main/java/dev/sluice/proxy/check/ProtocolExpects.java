package dev.sluice.proxy.check;

/**
 * The built-in expect parsers of {@code option mysql-check} and {@code option ldap-check} (HAProxy's custom tcp-check
 * expect functions): the MySQL greeting or OK packet must not be an error packet, the LDAP BindResponse must carry
 * result code 0. Stateless; they read the session's buffer.
 */
final class ProtocolExpects {
    private ProtocolExpects() {
    }

    /** What a parser concluded: wait for more data, go on with the next rule, or end the check with a status. */
    record Verdict(Kind kind, CheckStatus status, int code, String desc) {
        enum Kind { WAIT, CONTINUE, FAILED, PASSED }

        static final Verdict WAIT = new Verdict(Kind.WAIT, null, 0, null);
        static final Verdict CONTINUE = new Verdict(Kind.CONTINUE, null, 0, null);
    }

    private static final String NOT_LDAP = "Not LDAPv3 protocol";

    /**
     * A MySQL packet at {@code offset}: the greeting (offset 0) or, after it, the answer to the authentication. An error
     * packet (0xff) fails with its code and message; the last rule passes with the server version of the greeting.
     */
    static Verdict mysql(CheckSession s, boolean greeting, boolean lastRead, boolean lastRule, CheckStatus ok) {
        byte[] b = s.bytes();
        int len = s.length();
        int offset = 0;
        if (!greeting) {
            if (len < 3) {
                return lastRead ? failed(CheckStatus.L7RSP, 0, "") : Verdict.WAIT;
            }
            offset = 4 + le(b, 0, 3);
        }
        if (len < offset + 4) {
            return lastRead ? failed(CheckStatus.L7RSP, 0, "") : Verdict.WAIT;
        }
        int plen = le(b, offset, 3);
        if (len < offset + plen + 4) {
            return lastRead ? failed(CheckStatus.L7RSP, 0, "") : Verdict.WAIT;
        }
        if ((b[offset + 4] & 0xff) == 0xff) {
            int err = offset + 6 < len ? le(b, offset + 5, 2) : 0;
            return failed(CheckStatus.L7STS, err, cString(b, offset + 7, len));
        }
        if (!lastRule) {
            return Verdict.CONTINUE;
        }
        return new Verdict(Verdict.Kind.PASSED, ok != null ? ok : CheckStatus.L7OK, 0, cString(b, 5, len));
    }

    /** The BindResponse of {@code option ldap-check}'s anonymous bind. */
    static Verdict ldap(CheckSession s, boolean lastRead, CheckStatus ok) {
        byte[] b = s.bytes();
        int len = s.length();
        try {
            int ptr = 1;
            int nbytes = 0;
            int msglen;
            if ((b[ptr] & 0x80) != 0) {
                nbytes = b[ptr] & 0x7f;
                if (len < 1 + nbytes) {
                    return tooShort(lastRead);
                }
                msglen = switch (nbytes) {
                    case 4 -> be(b, ptr + 1, 4);
                    case 2 -> be(b, ptr + 1, 2);
                    default -> -1;
                };
                if (msglen < 0) {
                    return failed(CheckStatus.L7RSP, 0, NOT_LDAP);
                }
            } else {
                msglen = b[ptr] & 0xff;
            }
            ptr += 1 + nbytes;
            if (len < 2 + nbytes + msglen) {
                return tooShort(lastRead);
            }
            // messageID INTEGER 1, then protocolOp bindResponse
            if (!at(b, len, ptr, 0x02, 0x01, 0x01, 0x61)) {
                return failed(CheckStatus.L7RSP, 0, NOT_LDAP);
            }
            ptr += 4;
            nbytes = (b[ptr] & 0x80) != 0 ? b[ptr] & 0x7f : 0;
            ptr += 1 + nbytes;
            // ldapResult: ENUMERATED
            if (!at(b, len, ptr, 0x0a, 0x01)) {
                return failed(CheckStatus.L7RSP, 0, NOT_LDAP);
            }
            ptr += 2;
            int code = ptr < len ? b[ptr] : 0;
            if (code != 0) {
                return failed(CheckStatus.L7STS, code, "See RFC: http://tools.ietf.org/html/rfc4511#section-4.1.9");
            }
            return new Verdict(Verdict.Kind.PASSED, ok != null ? ok : CheckStatus.L7OK, 0, "Success");
        } catch (ArrayIndexOutOfBoundsException e) {
            // shorter than its own lengths say
            return tooShort(lastRead);
        }
    }

    private static Verdict tooShort(boolean lastRead) {
        return lastRead ? failed(CheckStatus.L7RSP, 0, "") : Verdict.WAIT;
    }

    private static Verdict failed(CheckStatus st, int code, String desc) {
        return new Verdict(Verdict.Kind.FAILED, st, code, desc);
    }

    private static boolean at(byte[] b, int len, int ptr, int... expected) {
        if (ptr + expected.length > len) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if ((b[ptr + i] & 0xff) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private static int le(byte[] b, int off, int n) {
        int v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    private static int be(byte[] b, int off, int n) {
        int v = 0;
        for (int i = 0; i < n; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    /** The bytes from {@code from} up to a NUL or {@code end}, one char each. */
    private static String cString(byte[] b, int from, int end) {
        StringBuilder s = new StringBuilder();
        for (int i = from; i < end && b[i] != 0; i++) {
            s.append((char) (b[i] & 0xff));
        }
        return s.toString();
    }
}
