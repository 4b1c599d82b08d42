/**
 * Text shapes shared by the core and the protocol modules: {@link io.paduraksa.text.AsciiText},
 * a byte-per-char sequence that copies out in bulk, and {@link io.paduraksa.text.ByteHash}, the hash
 * of a byte range the per-thread memos use. No state, nothing per request.
 */
package io.paduraksa.text;
