import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * A CPU profile of this process from now until `stop(path)`, through the inspector, so a bench
 * profiles only its measured window (not its set-up); `intervalUs` is the sampling interval.
 */
export async function startCpuProfile(intervalUs?: number) {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  if (intervalUs !== undefined)
    await post('Profiler.setSamplingInterval', { interval: intervalUs });
  await post('Profiler.start');
  return {
    async stop(path: string): Promise<void> {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
