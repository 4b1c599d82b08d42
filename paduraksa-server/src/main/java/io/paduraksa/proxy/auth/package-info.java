/**
 * Forward-auth subrequests: the slow path of a {@code forward_auth} policy whose decision was not
 * cached. Runs on the client connection's event loop, once per cache miss; may allocate.
 */
package io.paduraksa.proxy.auth;
