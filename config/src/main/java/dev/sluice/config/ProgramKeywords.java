package dev.sluice.config;

import dev.sluice.config.model.Program;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * The {@code program} section (HAProxy 2.6's src/mworker-prog.c cfg_parse_program): {@code command}, {@code user},
 * {@code group}, {@code [no] option start-on-reload}, with HAProxy's messages. Its lines are read here, not through the
 * registry (its {@code user}, {@code group} and {@code option} are not the global section's nor a proxy's); the registry
 * holds their reference entry. Whether the process runs in master-worker mode, which a program needs, is known to
 * the command line: the launcher checks it, and looks the users and groups up.
 */
final class ProgramKeywords {
    private ProgramKeywords() {
    }

    /** A {@code program} section while it is parsed. */
    static final class Builder {
        final SourceRef where;
        final String name;
        List<String> command;
        String user;
        SourceRef userAt;
        String group;
        SourceRef groupAt;
        boolean startOnReload = true;

        Builder(SourceRef where, String name) {
            this.where = where;
            this.name = name;
        }
    }

    static void register(KeywordRegistry r) {
        r.register(new Keyword("command", EnumSet.of(Section.PROGRAM), "command <command> [<argument> ...]",
                "The command a 'program <name>' section runs: the master of master-worker mode (-W, or 'master-worker') starts it"
                        + " before its first worker (its output is the master's), shows it in the master CLI's 'show proc' ('# programs'),"
                        + " stops it with the workers, and at a reload starts it again, the former one getting SIGUSR1 once the reload"
                        + " succeeded, unless 'no option start-on-reload' keeps it running. A program that exits with another status than"
                        + " 0 or a SIGINT/SIGTERM stops everything, as a worker does ('no-exit-on-failure' aside). The section's other"
                        + " lines: 'user <name>', 'group <name>' (run as them: needs root), '[no] option start-on-reload'.",
                c -> {
                }));
    }

    static Builder header(SourceRef at, List<String> words, Map<String, Builder> sections, Diagnostics diags) {
        if (words.size() > 2) {
            diags.error(at, "'program' cannot handle unexpected argument '" + words.get(2) + "'.");
            return null;
        }
        if (words.size() < 2 || words.get(1).isEmpty()) {
            diags.error(at, "'program' expects an <id> argument");
            return null;
        }
        String name = words.get(1);
        if (sections.containsKey(name)) {
            diags.error(at, "'" + name + "' program section already exists in the configuration.");
            return null;
        }
        Builder b = new Builder(at, name);
        sections.put(name, b);
        return b;
    }

    static void line(Builder b, SourceRef at, List<String> w, Diagnostics diags) {
        boolean no = w.get(0).equals("no") && w.size() > 1;
        List<String> words = no ? w.subList(1, w.size()) : w;
        String kw = words.get(0);
        String arg = words.size() > 1 ? words.get(1) : "";
        switch (kw) {
            case "command" -> {
                if (arg.isEmpty()) {
                    diags.error(at, "'command' expects a command with optional arguments separated in words.");
                    return;
                }
                b.command = new ArrayList<>(words.subList(1, words.size()));
            }
            case "option" -> {
                if (arg.isEmpty()) {
                    diags.error(at, "'option' expects an option name.");
                } else if (!arg.equals("start-on-reload")) {
                    diags.error(at, "unknown option '" + arg + "'.");
                } else if (words.size() > 2) {
                    diags.error(at, "'option start-on-reload' cannot handle unexpected argument '" + words.get(2) + "'.");
                } else {
                    b.startOnReload = !no;
                }
            }
            case "user", "group" -> {
                boolean user = kw.equals("user");
                if (arg.isEmpty()) {
                    diags.error(at, "'" + kw + "' expects a " + kw + " name.");
                } else if (words.size() > 2) {
                    diags.error(at, "'" + kw + "' cannot handle unexpected argument '" + words.get(2) + "'.");
                } else if ((user ? b.user : b.group) != null) {
                    diags.error(at, (user ? "user/uid" : "group/gid") + " already specified. Continuing.");
                } else if (user) {
                    b.user = arg;
                    b.userAt = at;
                } else {
                    b.group = arg;
                    b.groupAt = at;
                }
            }
            default -> diags.error(at, "unknown keyword '" + w.get(0) + "' in 'program' section");
        }
    }

    /** After everything is read: each section needs a command (HAProxy's cfg_program_postparser). */
    static List<Program> finish(Map<String, Builder> sections, Diagnostics diags) {
        List<Program> out = new ArrayList<>();
        for (Builder b : sections.values()) {
            if (b.command == null) {
                diags.error(b.where, "The program section '" + b.name + "' lacks a command to launch.");
                continue;
            }
            out.add(new Program(b.where, b.name, b.command, b.user, b.userAt, b.group, b.groupAt, b.startOnReload));
        }
        return out;
    }
}
