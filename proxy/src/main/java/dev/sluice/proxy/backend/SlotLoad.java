package dev.sluice.proxy.backend;

/** Which of the backend's requests count in its load for the dynamic maxconn ({@link Server#effectiveMaxconn(SlotLoad)}). */
enum SlotLoad {
    /** A new request asks for a slot: the backend's requests and this one (HAProxy's beconn counts it already). */
    NEW_REQUEST,
    /** A server changed: the backend's requests, queued ones included. */
    QUEUES,
    /** A request gave its slot back: the backend's requests and that one (HAProxy serves its queue before it leaves). */
    RELEASE,
    /**
     * A request was just queued: only those holding a slot, so that the load's rise alone hands out no slot (HAProxy
     * serves its queues with the new limit only when a slot is given back or a server changes).
     */
    ARRIVAL
}
