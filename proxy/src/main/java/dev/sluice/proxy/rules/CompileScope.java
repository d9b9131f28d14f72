package dev.sluice.proxy.rules;

import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What the sample and action compilers of one proxy may consult while they compile its rules, without it being passed
 * through every compiler: the configuration's stick tables and the proxy's name (a track-sc or sc_* sample without a
 * table uses the proxy's own), and the directory its lines' relative file paths start from ({@code default-path}: maps,
 * pattern files, return files are opened while compiling, as HAProxy opens them while parsing). Set for the duration
 * of a compilation on the compiling thread.
 */
final class CompileScope {
    private CompileScope() {
    }

    private record Scope(StickTables tables, String proxy, String directory) {
    }

    private static final ThreadLocal<Scope> SCOPE = new ThreadLocal<>();

    /** Runs {@code body} with these visible to the compilers. */
    static <T> T in(StickTables tables, String proxy, String directory, Supplier<T> body) {
        Scope previous = SCOPE.get();
        SCOPE.set(new Scope(tables, proxy, directory));
        try {
            return body.get();
        } finally {
            SCOPE.set(previous);
        }
    }

    /** The stick tables of the compilation, or null outside one. */
    static StickTables tables() {
        Scope s = SCOPE.get();
        return s == null ? null : s.tables();
    }

    /** The proxy being compiled, or null. */
    static String proxy() {
        Scope s = SCOPE.get();
        return s == null ? null : s.proxy();
    }

    /** A file a rule names, as the proxy's lines open it: relative paths from the proxy's {@code default-path} directory. */
    static Path file(String name) {
        Scope s = SCOPE.get();
        String dir = s == null ? null : s.directory();
        if (dir == null || name.startsWith("/") || name.isEmpty()) {
            return Path.of(name);
        }
        return Path.of(dir, name);
    }
}
