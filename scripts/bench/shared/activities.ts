/** The bare worker's one activity (the `start-activity` baseline): no database, no I/O. */
export async function benchNoop(): Promise<string> {
  return 'done';
}

export const benchActivities = { benchNoop };
