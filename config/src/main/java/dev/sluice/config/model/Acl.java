package dev.sluice.config.model;

import dev.sluice.config.SourceRef;

/**
 * A named ACL line: {@code acl <name> <expression>}. Several lines with the same name are ORed.
 */
public record Acl(SourceRef where, String name, AclExpr expr) {
}
