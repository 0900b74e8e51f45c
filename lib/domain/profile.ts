/** Profile names double as path segments: no dots, slashes or leading dash. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
