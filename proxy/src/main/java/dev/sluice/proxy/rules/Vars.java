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
}
