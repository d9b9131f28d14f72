package dev.sluice.proxy.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the files of a TLS setting look like now, to tell whether contexts made from them earlier still hold: the
 * size, modification time and inode of each certificate file and of its companions ({@code .key}, {@code .ocsp},
 * {@code .issuer}, {@code .sctl}, bundles: the files of the same directory whose name starts with the certificate's),
 * of each file of a certificate directory, and of the CA file. A changed, added or removed file changes the result.
 */
final class TlsFiles {
    private TlsFiles() {
    }

    static String fingerprint(List<String> certificates, String caFile) {
        StringBuilder b = new StringBuilder();
        for (String c : certificates) {
            describe(c, true, b);
        }
        if (caFile != null) {
            describe(caFile, false, b);
        }
        return b.toString();
    }

    private static void describe(String name, boolean companions, StringBuilder b) {
        Path p;
        try {
            p = Path.of(name);
        } catch (RuntimeException e) {
            b.append(name).append(" ?;");
            return;
        }
        if (Files.isDirectory(p)) {
            List<Path> entries = new ArrayList<>();
            try (Stream<Path> s = Files.list(p)) {
                s.sorted().forEach(entries::add);
            } catch (IOException e) {
                b.append(name).append(" unreadable;");
                return;
            }
            entries.forEach(e -> stat(e, b));
            return;
        }
        stat(p, b);
        Path dir = p.toAbsolutePath().getParent();
        if (companions && dir != null) {
            String base = p.getFileName().toString();
            int dot = base.lastIndexOf('.');
            String stem = dot > 0 ? base.substring(0, dot) : base;
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(f -> !f.getFileName().toString().equals(base) && f.getFileName().toString().startsWith(stem)).sorted()
                        .forEach(f -> stat(f, b));
            } catch (IOException e) {
                b.append(dir).append(" unreadable;");
            }
        }
    }

    private static void stat(Path p, StringBuilder b) {
        b.append(p).append(' ');
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            b.append(a.size()).append(' ').append(a.lastModifiedTime()).append(' ').append(a.fileKey());
        } catch (IOException e) {
            b.append("missing");
        }
        b.append(';');
    }
}
