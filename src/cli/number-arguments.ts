/**
 * Commander argument parsers for numeric options, shared by the batch-shaped commands so a bad value
 * is refused with the same message everywhere.
 */
import { InvalidArgumentError } from 'commander';

/** A parser for whole numbers of at least `min`. */
export const wholeNumber = (min: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number ≥ ${min}`);
  return n;
};

/** A parser for finite numbers above zero. */
export const positiveNumber = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
};
