package dev.sluice.proxy.runtime;

import dev.sluice.config.SourceRef;
import dev.sluice.config.model.Config;
import dev.sluice.config.model.Proxy;
import dev.sluice.config.model.Server;
import dev.sluice.config.model.ServerStateFiles;
import dev.sluice.proxy.backend.SavedServerState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the server state files of a configuration at start-up (HAProxy 2.6's apply_server_state): the global
 * {@code server-state-file} once, and each backend's own file for {@code load-server-state-from-file local}, then matches
 * their lines to the configured servers with HAProxy's rules and checks each matched line ({@link SavedServerState#of}).
 * Its warnings are HAProxy's, each after the line of the configuration it concerns. Runs before the runtime exists (so
 * {@code -c} reports the same), never on an event loop. Static.
 *
 * <p>Matching: in the global file a line belongs to the backend named in it (ids are not looked at) and names its server;
 * in a local file a line whose backend id and name both differ from the backend's is skipped, an id mismatch is a warning,
 * a name mismatch a warning that also skips the line unless the backend id was forced ({@code bk_f_forced_id}); the lines
 * of a local file naming no server of the backend are reported ("can't find server"), those of the global file are not.
 * The first line of a backend/server pair wins. A line without its line feed, with fewer than 20 fields (past 25, the rest is ignored)
 * makes the whole file ignored ("corrupted ... at line n", counted from the line after the version).
 */
final class ServerStateLoader {
    private ServerStateLoader() {
    }

    /** HAProxy's SRV_STATE_LINE_MAXLEN: fgets reads at most this minus one byte per call. */
    private static final int LINE_MAX = 2000;

    /** The saved state of each server that has one, by backend name then server name. */
    static Map<String, Map<String, SavedServerState>> load(Config config, List<String> warnings) {
        Map<String, Map<String, SavedServerState>> out = new HashMap<>();
        ServerStateFiles files = config.global().serverState();
        // as HAProxy: the global file is read whenever it is set, whatever the backends (its warnings with it)
        Map<String, List<String>> global = null;
        if (files.globalFile() != null) {
            String path = files.path(files.globalFile());
            String where = files.globalFileAt() + ": warning: ";
            List<String> lines = read(path, warnings, where + "config: Can't open global server state file '" + path + "': ", "");
            if (lines != null) {
                if (lines.isEmpty() || !version(lines.get(0))) {
                    warnings.add(where + "config: Can't get version of the global server state file '" + path + "'.");
                } else {
                    global = new HashMap<>();
                    for (int i = 1; i < lines.size(); i++) {
                        List<String> f = fields(lines.get(i));
                        if (f == CORRUPTED) {
                            warnings.add(where + "config: corrupted global server state file '" + path + "' at line " + i + ".");
                            global = null;
                            break;
                        }
                        if (f != null) {
                            global.putIfAbsent(f.get(1) + " " + f.get(3), f);
                        }
                    }
                }
            }
        }
        // the proxy ids, as the runtime numbers them (ProxyRuntime: config order from 2)
        Map<String, Integer> ids = new HashMap<>();
        for (Proxy p : config.proxies()) {
            ids.put(p.name(), ids.size() + 2);
        }
        for (Proxy p : config.proxies()) {
            if (!p.kind().hasBackend() || p.servers().isEmpty()) {
                continue;
            }
            ServerStateFiles.Load load = p.options().serverState();
            String where = p.where() + ": warning: ";
            Map<String, List<String>> lines;
            if (load.from() == ServerStateFiles.From.NONE) {
                continue;
            } else if (load.from() == ServerStateFiles.From.GLOBAL) {
                if (global == null) {
                    continue;
                }
                lines = new LinkedHashMap<>();
                for (Server s : p.servers()) {
                    List<String> f = global.get(p.name() + " " + s.name());
                    if (f != null) {
                        lines.put(p.name() + " " + s.name(), f);
                    }
                }
            } else {
                lines = local(p, ids.get(p.name()), files, where, warnings);
                if (lines == null) {
                    continue;
                }
            }
            Map<String, SavedServerState> states = new HashMap<>();
            for (Server s : p.servers()) {
                List<String> f = lines.remove(p.name() + " " + s.name());
                if (f != null) {
                    List<String> mine = new ArrayList<>();
                    SavedServerState st = SavedServerState.of(p.name(), s.name(), f.subList(4, f.size()), mine);
                    mine.forEach(m -> warnings.add(where + m));
                    if (st != null) {
                        states.put(s.name(), st);
                    }
                }
            }
            if (load.from() == ServerStateFiles.From.LOCAL) {
                for (List<String> f : lines.values()) {
                    warnings.add(where + "Proxy '" + p.name() + "': can't find server '" + f.get(3) + "' in backend '" + p.name() + "'");
                }
            }
            if (!states.isEmpty()) {
                out.put(p.name(), states);
            }
        }
        return out;
    }

    /** A backend's own file, its lines keyed "backend server" after HAProxy's id and name checks; null when unusable. */
    private static Map<String, List<String>> local(Proxy p, int id, ServerStateFiles files, String where, List<String> warnings) {
        String name = p.options().serverState().fileName() != null ? p.options().serverState().fileName() : p.name();
        String path = files.path(name);
        List<String> lines = read(path, warnings, where + "Proxy '" + p.name() + "': Can't open server state file '" + path + "': ", ".");
        if (lines == null) {
            return null;
        }
        if (lines.isEmpty() || !version(lines.get(0))) {
            warnings.add(where + "Proxy '" + p.name() + "': Can't get version of the server state file '" + path + "'.");
            return null;
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            List<String> f = fields(lines.get(i));
            if (f == CORRUPTED) {
                warnings.add(where + "Proxy '" + p.name() + "': corrupted server state file '" + path + "' at line " + i + ".");
                return null;
            }
            if (f == null) {
                continue;
            }
            boolean sameId = atoi(f.get(0)) == id;
            boolean sameName = f.get(1).equals(p.name());
            if (!sameId && !sameName) {
                continue;
            }
            if (!sameId) {
                warnings.add(where + "Proxy '" + p.name() + "': backend ID mismatch: from server state file: '" + f.get(0)
                        + "', from running config '" + id + "'");
            } else if (!sameName) {
                warnings.add(where + "Proxy '" + p.name() + "': backend name mismatch: from server state file: '" + f.get(1)
                        + "', from running config '" + p.name() + "'");
                if ((atoi(f.get(15)) & 1) == 0) {
                    continue;
                }
            }
            out.putIfAbsent(p.name() + " " + f.get(3), f);
        }
        return out;
    }

    /**
     * The file's lines as fgets would cut them (each with its line feed, none longer than {@link #LINE_MAX} - 1 bytes), or
     * null when it cannot be read (reported with the reason as strerror words it, then {@code end}).
     */
    private static List<String> read(String path, List<String> warnings, String prefix, String end) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            bytes = in.readAllBytes();
        } catch (NoSuchFileException e) {
            warnings.add(prefix + "No such file or directory" + end);
            return null;
        } catch (AccessDeniedException e) {
            warnings.add(prefix + "Permission denied" + end);
            return null;
        } catch (IOException | RuntimeException e) {
            warnings.add(prefix + (e.getMessage() != null && e.getMessage().contains("directory") ? "Is a directory" : String.valueOf(e.getMessage()))
                    + end);
            return null;
        }
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n' || i - start + 1 == LINE_MAX - 1) {
                lines.add(new String(bytes, start, i + 1 - start, StandardCharsets.ISO_8859_1));
                start = i + 1;
            }
        }
        if (start < bytes.length) {
            lines.add(new String(bytes, start, bytes.length - start, StandardCharsets.ISO_8859_1));
        }
        return lines;
    }

    /** Whether the first line is a supported version: a number (strtol) followed by the line feed, and 1. */
    private static boolean version(String line) {
        int i = 0;
        while (i < line.length() && Character.isWhitespace(line.charAt(i)) && line.charAt(i) != '\n') {
            i++;
        }
        int j = i;
        if (j < line.length() && (line.charAt(j) == '+' || line.charAt(j) == '-')) {
            j++;
        }
        int digits = j;
        while (j < line.length() && Character.isDigit(line.charAt(j))) {
            j++;
        }
        if (j == digits || j >= line.length() || line.charAt(j) != '\n') {
            return false;
        }
        try {
            return Long.parseLong(line.substring(i, j).replace("+", "")) == 1;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** {@link #fields} of a line that makes the file corrupted. */
    static final List<String> CORRUPTED = List.of();

    /**
     * HAProxy's srv_state_parse_line: the blank-separated fields of a line (at most 25 kept), null for a blank or comment
     * line, {@link #CORRUPTED} for a line without its line feed or with a field count outside 20..25.
     */
    static List<String> fields(String line) {
        if (line.isEmpty() || line.charAt(line.length() - 1) != '\n') {
            return CORRUPTED;
        }
        String body = line.substring(0, line.length() - 1);
        int i = 0;
        while (i < body.length() && (body.charAt(i) == ' ' || body.charAt(i) == '\t')) {
            i++;
        }
        if (i == body.length() || body.charAt(i) == '#') {
            return null;
        }
        List<String> f = new ArrayList<>();
        while (i < body.length() && f.size() < 25) {
            while (i < body.length() && (body.charAt(i) == ' ' || body.charAt(i) == '\t')) {
                i++;
            }
            int s = i;
            while (i < body.length() && body.charAt(i) != ' ' && body.charAt(i) != '\t') {
                i++;
            }
            f.add(body.substring(s, i));
            i++;
        }
        return f.size() < 20 ? CORRUPTED : f;
    }

    /** C's atoi. */
    private static long atoi(String s) {
        long v = SavedServerState.strtol(s);
        return v == Long.MIN_VALUE ? 0 : v;
    }
}
