package dev.sluice.proxy.rules;

/** One compiled {@code http-request} line: its action (conditions come with the ACL engine). */
public record HttpRequestRule(RequestAction action) {
}
