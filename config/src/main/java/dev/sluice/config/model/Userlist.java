package dev.sluice.config.model;

import dev.sluice.config.SourceRef;
import java.util.List;

/**
 * A {@code userlist} section: users with a crypt(3) hash or a clear-text password, and groups. A user's
 * groups are those its {@code groups} option names plus those whose {@code users} option names it;
 * every name was checked to exist in the section.
 */
public record Userlist(SourceRef where, String name, List<User> users, List<Group> groups) {
    public Userlist {
        users = List.copyOf(users);
        groups = List.copyOf(groups);
    }

    /**
     * One {@code user} line. {@code password} is null for a user without password (who never
     * authenticates); {@code insecure} tells a clear-text {@code insecure-password} from a crypt(3) hash.
     */
    public record User(SourceRef where, String name, String password, boolean insecure, List<String> groups) {
        public User {
            groups = List.copyOf(groups);
        }
    }

    /** One {@code group} line with the users it lists. */
    public record Group(SourceRef where, String name, List<String> users) {
        public Group {
            users = List.copyOf(users);
        }
    }
}
