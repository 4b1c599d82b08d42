/**
 * Text shapes shared by the core and the protocol modules: {@link io.paduraksa.text.AsciiText},
 * a byte-per-char sequence that copies out in bulk; {@link io.paduraksa.text.ByteHash}, the hashes
 * of a byte range the per-thread memos use, and {@link io.paduraksa.text.ValueSlots}, the slots they
 * keep values in (allocated once per memo). Nothing per request.
 */
package io.paduraksa.text;
