/** The values every layer shares: business keys, sequences, change events, versions and their changes. */
package io.dimstream.model;
