/** Small inline icons (decorative: every use has a text label or an aria-label on its control). */
const base = { width: 20, height: 20, viewBox: '0 0 24 24', fill: 'none', stroke: 'currentColor', strokeWidth: 2, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;

export type IconName = 'map' | 'log' | 'fence' | 'place' | 'unit' | 'calendar' | 'users' | 'home' | 'bell' | 'plus' | 'phone' | 'lock' | 'menu' | 'logout' | 'mail' | 'close' | 'settings';

const paths: Record<IconName, string[]> = {
  map: ['M9 4 3 6v14l6-2 6 2 6-2V4l-6 2-6-2z', 'M9 4v14', 'M15 6v14'],
  log: ['M4 4h16v16H4z', 'M8 8h8', 'M8 12h8', 'M8 16h5'],
  fence: ['M12 3 20 8v8l-8 5-8-5V8z', 'M12 9.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z'],
  place: ['M12 21s-7-6.2-7-11a7 7 0 0 1 14 0c0 4.8-7 11-7 11z', 'M12 7.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z'],
  unit: ['M3 13l2-6h14l2 6v5H3z', 'M7 18v2', 'M17 18v2', 'M6.5 14.5h.01', 'M17.5 14.5h.01'],
  calendar: ['M4 5h16v16H4z', 'M4 10h16', 'M9 3v4', 'M15 3v4'],
  users: ['M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M2 21v-1a6 6 0 0 1 12 0v1', 'M16 3.5a4 4 0 0 1 0 7', 'M22 21v-1a6 6 0 0 0-4-5.6'],
  home: ['M3 11 12 3l9 8', 'M5 10v10h14V10'],
  bell: ['M6 16V11a6 6 0 1 1 12 0v5l2 2H4z', 'M10 20a2 2 0 0 0 4 0'],
  plus: ['M12 5v14', 'M5 12h14'],
  phone: ['M5 3h4l2 5-3 2a11 11 0 0 0 6 6l2-3 5 2v4a2 2 0 0 1-2 2A18 18 0 0 1 3 5a2 2 0 0 1 2-2z'],
  lock: ['M6 11h12v10H6z', 'M8 11V7a4 4 0 0 1 8 0v4'],
  menu: ['M4 6h16', 'M4 12h16', 'M4 18h16'],
  logout: ['M15 4h4v16h-4', 'M10 17l5-5-5-5', 'M15 12H3'],
  mail: ['M3 5h18v14H3z', 'M3 6l9 7 9-7'],
  close: ['M6 6l12 12', 'M18 6 6 18'],
  // Three sliders: the account's settings.
  settings: [
    'M4 6h8',
    'M16 6h4',
    'M14 4a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
    'M4 12h2',
    'M10 12h10',
    'M8 10a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
    'M4 18h10',
    'M18 18h2',
    'M16 16a2 2 0 1 0 0 4 2 2 0 0 0 0-4z',
  ],
};

export function Icon({ name }: { name: IconName }) {
  return (
    <svg {...base} aria-hidden="true" focusable="false">
      {paths[name].map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}
