package dev.sluice.proxy.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a master starts its workers from: the java command up to the jar or main class ({@link #jvm}: the java binary,
 * the JVM's options, {@code -jar <jar>} or a class path and main class), and the files that make that program (the jar
 * or class path entries, and the JDK's binary, {@code libjvm.so} and {@code lib/modules}). {@link #fingerprint} stamps
 * them when a worker starts; {@link #changedSince} tells at a reload whether the program the current worker runs is still
 * the one on disk (a worker that runs it may reload its configuration in place) or was replaced (a new worker must run
 * the new one). Immutable; the stamps read the file system on the calling thread.
 *
 * <p>A jar or class path file is stamped with its size, modification time and a CRC-32C of its bytes (taken at the
 * worker's start, compared at a reload only when size and time are the same: a copy over it in the same second still
 * shows); a class directory with the count, total size and latest time of its files; the JDK's files with size and
 * time (a package upgrade rewrites them; hashing 150 MB at each start would not pay).
 */
record WorkerProgram(List<String> jvm) {

    /**
     * In the master, the java command line of its workers as the launcher computed it ({@code ./sluice}: the daemon's
     * memory flags and start-up cache, which the master itself runs without), one word a line, ending with the jar or
     * main class. Without it a worker runs with the master's own command.
     */
    static final String ENV = "SLUICE_WORKER_JVM";

    WorkerProgram {
        jvm = List.copyOf(jvm);
    }

    /**
     * The workers' program in this master: {@link #ENV} when set (and not empty), else this JVM's own command
     * ({@code args} being the proxy's arguments at its end); null when neither can be read.
     */
    static WorkerProgram forWorkers(String[] args, String env) {
        if (env != null && !env.isBlank()) {
            List<String> words = env.lines().filter(l -> !l.isEmpty()).toList();
            if (!words.isEmpty()) {
                return new WorkerProgram(words);
            }
        }
        List<String> own = Daemon.jvmCommand(args);
        return own == null ? null : new WorkerProgram(own);
    }

    /** The java binary. */
    String java() {
        return jvm.get(0);
    }

    /** The JVM's options: what comes between the java binary and {@code -jar} or the main class. */
    List<String> options() {
        List<String> out = new ArrayList<>();
        for (int i = 1; i < jvm.size(); i++) {
            String a = jvm.get(i);
            if (a.equals("-jar") || !a.startsWith("-")) {
                break;
            }
            out.add(a);
            if (takesValue(a) && i + 1 < jvm.size()) {
                out.add(jvm.get(++i));
            }
        }
        return out;
    }

    /** The java options whose value is the next word. */
    private static boolean takesValue(String option) {
        return switch (option) {
            case "-cp", "-classpath", "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules",
                 "--add-exports", "--add-opens", "--add-reads", "--limit-modules", "--patch-module", "--enable-native-access" -> true;
            default -> false;
        };
    }

    /** The files the classes come from: the jar of {@code -jar}, else the entries of the class path option. */
    List<Path> classPath() {
        List<Path> out = new ArrayList<>();
        for (int i = 1; i < jvm.size(); i++) {
            String a = jvm.get(i);
            String value = null;
            if ((a.equals("-jar") || a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")) && i + 1 < jvm.size()) {
                value = jvm.get(++i);
            } else if (a.startsWith("--class-path=")) {
                value = a.substring("--class-path=".length());
            }
            if (value != null) {
                if (a.equals("-jar")) {
                    // -jar wins over any class path
                    return List.of(Path.of(value).toAbsolutePath());
                }
                out.clear();
                for (String e : value.split(":")) {
                    if (!e.isEmpty()) {
                        out.add(Path.of(e).toAbsolutePath());
                    }
                }
            }
            if (!a.startsWith("-")) {
                // the main class
                break;
            }
            if (value == null && takesValue(a)) {
                i++;
            }
        }
        return out;
    }

    /** The JDK's files behind the java binary: the binary, the JVM library and the class image. */
    List<Path> runtimeFiles() {
        Path bin;
        try {
            bin = Path.of(java()).toRealPath();
        } catch (IOException e) {
            return List.of(Path.of(java()));
        }
        Path home = bin.getParent() == null ? null : bin.getParent().getParent();
        List<Path> out = new ArrayList<>(List.of(bin));
        if (home != null) {
            out.add(home.resolve("lib/server/libjvm.so"));
            out.add(home.resolve("lib/modules"));
        }
        return out;
    }

    /**
     * One file's stamp: size, time (ns) and the CRC of its bytes for a hashed file (-1 otherwise); size -1: missing. A
     * directory's: its files' total size, latest time, and their count in {@code crc}.
     */
    record Stamp(Path path, boolean directory, long size, long modified, long crc) {
        /** The same size and time (and kind; for a directory, the same count of files too). */
        boolean sameFile(Stamp o) {
            return directory == o.directory && size == o.size && modified == o.modified && (!directory || crc == o.crc);
        }
    }

    /** What a worker was started from: its command's options and its files' stamps. */
    record Fingerprint(List<String> options, List<Stamp> classPath, List<Stamp> runtime) {
    }

    /** Stamps the program's files now (hashing the class path's files). */
    Fingerprint fingerprint() {
        List<Stamp> cp = new ArrayList<>();
        for (Path p : classPath()) {
            cp.add(stamp(p, true));
        }
        List<Stamp> rt = new ArrayList<>();
        for (Path p : runtimeFiles()) {
            rt.add(stamp(p, false));
        }
        return new Fingerprint(options(), List.copyOf(cp), List.copyOf(rt));
    }

    /**
     * What changed since {@code start} was taken, in a few words ("the jar /opt/sluice.jar changed"), or null when the
     * program is the same. A file's bytes are hashed only when its size and time are the same as at the start.
     */
    String changedSince(Fingerprint start) {
        if (!options().equals(start.options())) {
            return "the JVM's options changed";
        }
        List<Path> cp = classPath();
        if (cp.size() != start.classPath().size()) {
            return "the class path changed";
        }
        for (int i = 0; i < cp.size(); i++) {
            Stamp was = start.classPath().get(i);
            if (!cp.get(i).equals(was.path())) {
                return "the class path changed";
            }
            Stamp now = stamp(was.path(), false);
            if (!now.sameFile(was) || !was.directory() && was.crc() >= 0 && crc(was.path()) != was.crc()) {
                return (was.path().toString().endsWith(".jar") ? "the jar " : "") + was.path() + " changed";
            }
        }
        List<Path> rt = runtimeFiles();
        if (rt.size() != start.runtime().size()) {
            return "the Java runtime changed";
        }
        for (int i = 0; i < rt.size(); i++) {
            Stamp was = start.runtime().get(i);
            if (!rt.get(i).equals(was.path()) || !stamp(was.path(), false).sameFile(was)) {
                return "the Java runtime " + rt.get(0) + " changed";
            }
        }
        return null;
    }

    /** A file's stamp, its bytes hashed when {@code hash} and it is a regular file; a directory's from its files. */
    static Stamp stamp(Path p, boolean hash) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (IOException e) {
            return new Stamp(p, false, -1, -1, -1);
        }
        if (a.isDirectory()) {
            return directoryStamp(p);
        }
        return new Stamp(p, false, a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), hash ? crc(p) : -1);
    }

    /** A class directory: its files' count (as the CRC), total size and latest time. */
    private static Stamp directoryStamp(Path dir) {
        long count = 0;
        long size = 0;
        long latest = 0;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (a.isRegularFile()) {
                    count++;
                    size += a.size();
                    latest = Math.max(latest, a.lastModifiedTime().to(TimeUnit.NANOSECONDS));
                }
            }
        } catch (IOException | RuntimeException e) {
            return new Stamp(dir, true, -1, -1, -1);
        }
        return new Stamp(dir, true, size, latest, count);
    }

    /** The CRC-32C of a file's bytes, -1 when it cannot be read. */
    static long crc(Path p) {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(p)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                crc.update(buf, 0, n);
            }
        } catch (IOException e) {
            return -1;
        }
        return crc.getValue();
    }
}
