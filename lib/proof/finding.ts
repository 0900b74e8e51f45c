/** One thing `verify` checked, and whether it holds. */
export interface Finding {
  holds: boolean;
  text: string;
}
