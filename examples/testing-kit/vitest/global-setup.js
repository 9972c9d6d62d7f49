import { startMailtwin } from 'mailtwin/testing';

/** Starts one emulator for the whole run and hands its address to the workers. */
export default async function setup(project) {
  const server = await startMailtwin(); // in this process, on a free port
  project.provide('mailtwin', server.env);
  return () => server.stop();
}
