/** Time, as milliseconds since the epoch; a port so caches can be tested without waiting. */
export interface Clock {
  now(): number;
}
