/**
 * JMH benchmarks of every hot-path piece, mirroring the packages of the code under test. Run with
 * {@code paduraksa-bench/jmh.sh} (it passes {@code -prof gc}, so {@code gc.alloc.rate.norm} shows
 * bytes per operation next to ns/op).
 */
package io.paduraksa.bench;
