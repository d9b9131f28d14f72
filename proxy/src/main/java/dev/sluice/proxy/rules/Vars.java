package dev.sluice.proxy.rules;

/** Variable names: {@code txn.x}, {@code req.x}, {@code res.x}, {@code sess.x}, {@code proc.x}. */
public final class Vars {
    private Vars() {
    }

    /** Validates a variable name and returns it; throws {@link IllegalArgumentException}. */
    public static String name(String n) {
        int dot = n.indexOf('.');
        String scope = dot < 0 ? "" : n.substring(0, dot);
        switch (scope) {
            case "txn", "req", "res", "sess", "proc" -> {
                if (dot == n.length() - 1) {
                    throw new IllegalArgumentException("missing variable name after scope in '" + n + "'");
                }
                return n;
            }
            default -> throw new IllegalArgumentException("invalid variable name '" + n + "': the scope must be one of proc, sess, txn, req, res");
        }
    }

    /**
     * An argument HAProxy reads as "a string or a variable" ({@code aes_gcm_dec}, {@code jwt_verify}, {@code hmac}): the
     * variable it names when it has a variable's scope, read at each use; else the string, decoded once when the
     * configuration is read. {@code decode} gives null for a text that is not valid, and {@link #get} gives null then.
     */
    record Ref<T>(T fixed, String var, java.util.function.Function<String, T> decode) {
        static <T> Ref<T> of(String arg, java.util.function.Function<String, T> decode) {
            return arg.matches("(txn|req|res|sess|proc)\\..+") ? new Ref<>(null, name(arg), decode) : new Ref<>(decode.apply(arg), null, decode);
        }

        /** A variable, or a string that decoded. */
        boolean valid() {
            return var != null || fixed != null;
        }

        T get(Txn t) {
            if (var == null) {
                return fixed;
            }
            Object o = t.vars().get(var);
            return o == null ? null : decode.apply(Samples.str(o).toString());
        }
    }
}
