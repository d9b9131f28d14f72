package dev.sluice.proxy.auth;

import dev.sluice.config.model.Userlist;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The configuration's {@code userlist} sections, ready to check HTTP basic credentials. Immutable apart
 * from each user's cache of its last verified password; shared by every event loop.
 */
public final class Userlists {
    public static final Userlists NONE = new Userlists(Map.of());

    private final Map<String, Users> byName;

    private Userlists(Map<String, Users> byName) {
        this.byName = byName;
    }

    public static Userlists compile(List<Userlist> lists) {
        Map<String, Users> out = new HashMap<>();
        for (Userlist ul : lists) {
            out.put(ul.name(), new Users(ul));
        }
        return new Userlists(out);
    }

    /** The userlist of that name, or null. */
    public Users get(String name) {
        return byName.get(name);
    }

    /** One userlist: users by name, each with all its groups (its own and those that name it). */
    public static final class Users {
        private final Map<String, User> users = new HashMap<>();

        Users(Userlist ul) {
            for (Userlist.User u : ul.users()) {
                Set<String> groups = new LinkedHashSet<>(u.groups());
                for (Userlist.Group g : ul.groups()) {
                    if (g.users().contains(u.name())) {
                        groups.add(g.name());
                    }
                }
                users.put(u.name(), new User(u.name(), u.password(), u.insecure(), new ArrayList<>(groups)));
            }
        }

        /**
         * The user of this list named {@code name} whose password is {@code password} (the bytes as they came), or null.
         */
        public User authenticate(String name, byte[] password) {
            User u = users.get(name);
            return u != null && u.check(password) ? u : null;
        }
    }

    /**
     * A key of this process for the fingerprints of verified passwords, so they are not plain digests of the passwords;
     * made at the first fingerprint (seeding the JDK's SecureRandom costs 15 ms of a start without userlists).
     */
    private static final class Key {
        static final byte[] KEY = new byte[32];

        static {
            new SecureRandom().nextBytes(KEY);
        }
    }

    /**
     * A user of a userlist. Checking a crypt(3) hash is costly by design: on this machine 5.2 ms for SHA-512 with
     * its default 5000 rounds, 2.7 ms for SHA-256, 0.8 ms for MD5 (CryptTime, JDK 25), all of it on the event loop
     * of the request. HAProxy recomputes it on every request; Sluice remembers a keyed SHA-256 fingerprint of the
     * last password that verified (about 1 us to compare), so a client that keeps sending right credentials costs
     * a digest, while wrong passwords are always checked in full, as guessing should stay slow.
     */
    public static final class User {
        private final String name;
        private final String password;
        private final boolean insecure;
        private final List<String> groups;
        /** Fingerprint of the last password that matched the hash; written by any loop, a whole array at once. */
        private volatile byte[] verified;

        User(String name, String password, boolean insecure, List<String> groups) {
            this.name = name;
            this.password = password;
            this.insecure = insecure;
            this.groups = List.copyOf(groups);
        }

        public String name() {
            return name;
        }

        /** Every group of the user. */
        public List<String> groups() {
            return groups;
        }

        boolean check(byte[] given) {
            if (password == null) {
                return false;
            }
            if (insecure) {
                return MessageDigest.isEqual(password.getBytes(StandardCharsets.UTF_8), given);
            }
            byte[] fp = fingerprint(given);
            byte[] last = verified;
            if (last != null && MessageDigest.isEqual(last, fp)) {
                return true;
            }
            if (Crypt.verify(given, password)) {
                verified = fp;
                return true;
            }
            return false;
        }

        private static byte[] fingerprint(byte[] password) {
            try {
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                md.update(Key.KEY);
                md.update(password);
                return md.digest();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
