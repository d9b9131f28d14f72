package dev.sluice.config;

/** ACL names: letters, digits, {@code - _ . :}; reserved words cannot be names. */
final class AclNames {
    private AclNames() {
    }

    static void check(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty ACL name.");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.' || c == ':';
            if (!ok || c > 127) {
                throw new IllegalArgumentException("invalid character '" + c + "' in ACL name '" + name + "'.");
            }
        }
    }
}
