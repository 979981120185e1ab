/** `kubeop dev` (being built). */
export function devCommand(_args: string[]): Promise<number> {
  console.error("kubeop dev: not implemented yet");
  return Promise.resolve(1);
}
