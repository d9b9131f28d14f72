package dev.sluice.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the relative file paths of the configuration start from: HAProxy 2.6's {@code default-path}. HAProxy changes its
 * working directory while it parses each file (the file's own directory for {@code config}, its parent for
 * {@code parent}, a given one for {@code origin}, the start directory for {@code current}, the default) and opens the
 * files a line names (certificates, CA files, errorfiles, maps, pattern files, return files) then; it goes back to the
 * start directory afterwards, so what is opened once parsing is over (pidfile, stats sockets) is relative to that one.
 * A JVM cannot change its working directory: the parser resolves the paths a line names with {@link #resolve}, and each
 * proxy keeps the directory its lines were read in ({@code Proxy.directory()}) for the files the runtime opens while it
 * compiles the proxy's rules. Parse-time only.
 */
final class ConfigPaths {
    enum Mode {
        CURRENT, CONFIG, PARENT, ORIGIN
    }

    /** The directory the process was started in ({@code -C}), null for the working directory. */
    private final String start;
    private Mode mode = Mode.CURRENT;
    private String origin;
    /** Where the lines read now resolve relative paths: null for {@link #start}. */
    private String directory;

    ConfigPaths(String start) {
        this.start = start;
    }

    /** A new file starts: the {@code config} and {@code parent} modes follow it. */
    void enterFile(String file) {
        directory = directoryFor(file);
    }

    /**
     * A {@code default-path} line in {@code file}: the new policy applies to the following lines at once. Returns the
     * problem (HAProxy's words) when the directory does not exist, null otherwise.
     */
    String set(Mode m, String originDir, String file) {
        mode = m;
        if (m == Mode.ORIGIN) {
            origin = originDir;
        }
        String d = directoryFor(file);
        if (d != null && !Files.isDirectory(Path.of(d))) {
            return "Impossible to get back to directory '" + startDirectory() + "': No such file or directory";
        }
        directory = d;
        return null;
    }

    /** The directory relative paths resolve against now; null for the one the process was started in. */
    String directory() {
        return directory;
    }

    /** {@code path} as the lines read now open it. */
    String resolve(String path) {
        return resolve(directory, path);
    }

    /** {@code path} as a line read in {@code dir} (null: the start directory) opens it. */
    static String resolve(String dir, String path) {
        if (path == null || dir == null || path.startsWith("/") || path.isEmpty()) {
            return path;
        }
        return dir.endsWith("/") ? dir + path : dir + "/" + path;
    }

    private String directoryFor(String file) {
        String d = switch (mode) {
            case CURRENT -> null;
            case ORIGIN -> origin;
            case CONFIG, PARENT -> {
                int slash = file.lastIndexOf('/');
                String base = slash < 0 ? "" : file.substring(0, slash);
                yield mode == Mode.CONFIG ? base : base.isEmpty() ? ".." : base + "/..";
            }
        };
        if (d == null || d.isEmpty()) {
            return start;
        }
        return d.startsWith("/") || start == null ? d : resolve(start, d);
    }

    private String startDirectory() {
        return start != null ? Path.of(start).toAbsolutePath().normalize().toString() : Path.of("").toAbsolutePath().toString();
    }
}
