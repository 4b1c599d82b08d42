/**
 * Text shapes shared by the core and the protocol modules: {@link io.paduraksa.text.AsciiText},
 * a byte-per-char sequence that copies out in bulk. No state, nothing per request.
 */
package io.paduraksa.text;
