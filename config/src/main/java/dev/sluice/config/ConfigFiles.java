package dev.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads the files named by {@code -f}: a file is read as it is, a directory contributes its
 * {@code *.cfg} files in lexical order (HAProxy's rule). Unreadable paths become diagnostics.
 */
public final class ConfigFiles {
    private ConfigFiles() {
    }

    /** The sources read, and the problems met while reading. */
    public record Loaded(List<ConfigParser.Source> sources, List<Diagnostic> problems) {
    }

    public static Loaded load(List<Path> paths) {
        List<ConfigParser.Source> sources = new ArrayList<>();
        Diagnostics diags = new Diagnostics();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                List<Path> files;
                try (Stream<Path> s = Files.list(p)) {
                    files = s.filter(f -> f.getFileName().toString().endsWith(".cfg") && Files.isRegularFile(f)).sorted().toList();
                } catch (IOException e) {
                    diags.error(p.toString(), "cannot list configuration directory: " + e.getMessage());
                    continue;
                }
                for (Path f : files) {
                    read(f, sources, diags);
                }
            } else {
                read(p, sources, diags);
            }
        }
        return new Loaded(sources, diags.list());
    }

    private static void read(Path f, List<ConfigParser.Source> sources, Diagnostics diags) {
        try {
            byte[] bytes = Files.readAllBytes(f);
            // HAProxy reads bytes; ISO-8859-1 keeps every byte (non-ASCII comments included) as one char
            sources.add(new ConfigParser.Source(f.toString(), new String(bytes, StandardCharsets.ISO_8859_1)));
        } catch (IOException e) {
            diags.error(f.toString(), "cannot open configuration file: " + describe(e));
        }
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage();
    }
}
