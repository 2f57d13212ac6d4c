/** The dimension spec (one YAML file per dimension) and its validation with precise messages. */
package io.dimstream.spec;
