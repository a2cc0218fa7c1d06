// A page's code using the element, walks and renders (issue 31) in
// TypeScript: typechecked by TestAnywhereTypes (tsc --noEmit, strict)
// against www/*.d.ts.
import { AmbientAudio, bindLeaflet, type PathStep, type WalkHandle } from "../../www/ambient";
import type { AcAmbience, AcAmbienceErrorDetail } from "../../www/ac-ambience";

export function wire(list: HTMLElement): void {
  const el: AcAmbience = document.createElement("ac-ambience");
  el.setAttribute("pos", "42.1N,33.6E");
  el.addEventListener("ac-play", (e) => console.log("playing", e.detail.pos, el.ambient?.state().player));
  el.addEventListener("ac-error", (e) => {
    const d: AcAmbienceErrorDetail = e.detail;
    if (d.code === "missing-landblock") console.log("no ambient data here:", d.message);
  });
  list.append(el);
  if (!el.playing) void el.start();
}

export async function walkAndKeep(amb: AmbientAudio, map: Parameters<typeof bindLeaflet>[0]): Promise<string> {
  const w: WalkHandle = amb.walk(["42.1N,33.6E", { X: 32520, Y: 34704 }, { ns: 42.3, ew: 33.9 }], { speed: 12 });
  await w.done;
  const unbind = bindLeaflet(map, amb);
  const again: WalkHandle = unbind.walk(["42.1N,33.6E", "42.3N,33.9E"]);
  again.stop();
  unbind();
  const path: PathStep[] = [
    { t: 0, player: "42.1N,33.6E" },
    { t: 5, camera: { objcellId: 0xA9B4001F, x: 72, y: 144, z: 22, heading: 90 } },
  ];
  const wav: Blob = await amb.render({ path, seconds: 30, seed: 1, rate: 44100, volume: 0.8, tick: 1 / 30,
    onProgress: (p) => console.log(`${p.done} of ${p.total} s`) });
  return URL.createObjectURL(wav);
}
