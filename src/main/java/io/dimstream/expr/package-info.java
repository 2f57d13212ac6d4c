/** Spec expressions (CEL): derived attributes, {@code delete.when} and {@code skip_when}, compiled once at start. */
package io.dimstream.expr;
