// The engine's refusal of the environment it was started in.

/**
 * A setting in the environment the user must fix (HOME unset, a relative
 * home or state directory): one plain sentence. The engine has no idea of
 * exit codes; the command line shows it as a usage error (exit 2).
 */
export class ConfigError extends Error {}
