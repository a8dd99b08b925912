/** `build` run on the first call only; later calls return what it built (lazy, for costly documents). */
export const once = <T>(build: () => T): (() => T) => {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
};
