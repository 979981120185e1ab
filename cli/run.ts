/** `kubeop run` (being built). */
export function runCommand(_args: string[]): Promise<number> {
  console.error("kubeop run: not implemented yet");
  return Promise.resolve(1);
}
