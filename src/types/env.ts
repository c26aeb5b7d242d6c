/** Environment variables as a run reads them: the process environment plus `.env` files, or a caller's own. */
export type Env = Readonly<Record<string, string | undefined>>;
