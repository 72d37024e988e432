// US state telemarketing calling rules that are stricter than the federal
// 08:00-21:00 (47 CFR 64.1200(c)(1)), as data. The API is us-state-window.ts;
// docs/compliance.md ("Regional calling rules") is the same table for people.
//
// NOT LEGAL ADVICE. Each rule names what it was taken from. Where two sources
// disagree the stricter one is kept and the rule says so in `note`. "Summary"
// sources are compliance vendors' or law firms' tables, used where the
// statute's own text could not be read from here; they are marked as such.
//
// Hours are hours.ts specs read on the called person's local wall clock
// (e.g. "mon-sat 08:00-20:00"); a day missing from the spec is a closed day.

/** A rule applies to every telephone solicitation, or only to automated ones. */
type RuleScope = 'all' | 'automated';

export interface RuleSource {
  readonly cite: string;
  readonly url: string;
  /** 'statute' or 'regulation' when its text was read, 'summary' for a secondary table or article. */
  readonly kind: 'statute' | 'regulation' | 'summary';
}

interface StateRulePart {
  /**
   * 'automated': calls placed by an automatic dialer or playing a recorded or
   * synthesized voice (what leadline places: auto-dialer, AI voice agent).
   */
  readonly scope: RuleScope;
  /** Permitted local hours; null when the part restricts holidays only. */
  readonly hours: string | null;
  /** On the state's holidays: no calls, or only this local window ("HH:MM-HH:MM"). */
  readonly holidays?: 'closed' | string;
  /** Which holidays, in words; leadline has no state calendars yet (see docs). */
  readonly holidayCalendar?: string;
  /** ISO date the rule took effect. */
  readonly since?: string;
  readonly note?: string;
  readonly sources: readonly RuleSource[];
}

export interface StateRule {
  readonly state: string;
  readonly name: string;
  readonly parts: readonly StateRulePart[];
}

const DROPCOWBOY: RuleSource = { cite: 'Drop Cowboy, State Calling Restrictions Guide (updated 2025-11-01)', url: 'https://www.dropcowboy.com/state-compliance', kind: 'summary' };
const CLICKPOINT: RuleSource = { cite: 'ClickPoint, Telemarketing Calling Restrictions & Hours by State (reviewed 2025-07)', url: 'https://blog.clickpointsoftware.com/telemarketing-calling-hours-by-state', kind: 'summary' };
const STELLO: RuleSource = { cite: 'Stello, Compliance: state send windows (reviewed 2026-04-08)', url: 'https://usestello.com/compliance', kind: 'summary' };

export const FEDERAL_HOURS = 'mon-sun 08:00-21:00';
export const FEDERAL_SOURCE: RuleSource = {
  cite: '47 CFR 64.1200(c)(1) (TCPA rules): no telephone solicitation before 8 a.m. or after 9 p.m. local time at the called party',
  url: 'https://www.ecfr.gov/current/title-47/chapter-I/subchapter-B/part-64/subpart-L/section-64.1200',
  kind: 'regulation',
};

const rule = (state: string, name: string, ...parts: StateRulePart[]): StateRule => ({ state, name, parts });

export const US_STATE_RULES: readonly StateRule[] = [
  rule('AL', 'Alabama', {
    scope: 'all', hours: 'mon-sat 08:00-20:00', holidays: 'closed', holidayCalendar: 'Alabama state holidays (Ala. Code § 1-3-8)',
    note: 'The regulation is worded for automated solicitation calls; the summaries apply it to all telemarketing, which is kept as the stricter reading.',
    sources: [
      { cite: 'Ala. Admin. Code r. 770-X-5-.17(1)(b)', url: 'https://d1tvxue8o4w0fl.cloudfront.net/regulation/alabama-administrative-code/title-770-alabama-public-service-commission/chapter-770-x-5-telephone-rules/section-770-x-5-17-live-and-automated-solicitations-and-announcements', kind: 'regulation' },
      DROPCOWBOY, CLICKPOINT,
    ],
  }),
  rule('CA', 'California', {
    scope: 'automated', hours: 'mon-sun 09:00-21:00',
    sources: [{ ...STELLO, cite: `${STELLO.cite}, citing Cal. Pub. Util. Code § 2872(c)` }],
  }),
  rule('CT', 'Connecticut', {
    scope: 'all', hours: 'mon-sun 09:00-20:00', since: '2023-10-01',
    note: 'ClickPoint still shows 9 a.m.-9 p.m., the rule before Public Act 23-98; the 8 p.m. end is kept.',
    sources: [
      { cite: 'Conn. Gen. Stat. § 42-288a as amended by P.A. 23-98 (SB 1058), quoted by Klein Moynihan Turco', url: 'https://mondaq.co.uk/unitedstates/advertising-marketing--branding/1340464/revised-connecticut-telemarketing-law-signed-into-law', kind: 'summary' },
      { cite: 'TCPAWorld, Connecticut rolls out new telemarketing requirements (2023-06-28)', url: 'https://tcpaworld.com/2023/06/28/connecticut-rolls-out-new-telemarketing-requirements-here-is-what-you-need-to-know/', kind: 'summary' },
    ],
  }),
  rule('FL', 'Florida', {
    scope: 'all', hours: 'mon-sun 08:00-20:00', since: '2021-07-01',
    sources: [
      { cite: 'Fla. Stat. § 501.616(6)(a)', url: 'http://www.lawserver.com/law/state/florida/statutes/florida_statutes_501-616', kind: 'statute' },
      { cite: 'Florida SB 1120 (2021), amending § 501.616(6)', url: 'https://flsenate.gov/Session/Bill/2021/1120/BillText/Filed/HTML', kind: 'statute' },
    ],
  }),
  rule('IL', 'Illinois', {
    scope: 'automated', hours: 'mon-sun 09:00-21:00',
    note: 'Drop Cowboy shows 8 a.m.-9 p.m.; ClickPoint and Stello give 9 a.m. for prerecorded calls, which is kept.',
    sources: [{ ...STELLO, cite: `${STELLO.cite}, citing 815 ILCS 305` }, CLICKPOINT],
  }),
  rule('KY', 'Kentucky', {
    scope: 'all', hours: 'mon-sun 10:00-21:00',
    note: 'KRS 367.461(2)(e) (read) allows automated calling equipment 8 a.m.-9 p.m.; three summaries give 10 a.m. for all solicitations (KRS 367.46955), which is kept.',
    sources: [
      { cite: 'KRS 367.461(2)(e)', url: 'https://self-law.org/code/ky/chapter-367/367-461', kind: 'statute' },
      { ...STELLO, cite: `${STELLO.cite}, citing KRS 367.46955` }, DROPCOWBOY, CLICKPOINT,
    ],
  }),
  rule('LA', 'Louisiana', {
    scope: 'all', hours: 'mon-sat 08:00-20:00', holidays: 'closed', holidayCalendar: 'the Louisiana PSC do-not-call holidays (La. R.S. 1:55 lists the legal holidays)',
    note: 'During a declared state of emergency the PSC may stop all telephonic solicitation (La. R.S. 45:844.31); not modelled.',
    sources: [
      { cite: 'La. R.S. 45:844.14 and LPSC General Order R-29617 (hours taken from the summaries)', url: 'http://legis.la.gov/Legis/Law.aspx?d=100148', kind: 'summary' },
      DROPCOWBOY, CLICKPOINT,
    ],
  }),
  rule('MA', 'Massachusetts', {
    scope: 'all', hours: 'mon-sun 08:00-20:00',
    sources: [{ cite: '201 CMR 12.02(2)', url: 'https://regulations.justia.com/states/massachusetts/201-cmr/title-201-cmr-12-00/section-12-02', kind: 'regulation' }],
  }),
  rule('MD', 'Maryland', {
    scope: 'all', hours: 'mon-sun 08:00-20:00', since: '2024-01-01',
    sources: [
      { cite: 'Stop the Spam Calls Act of 2023 (SB 90), Md. Code Com. Law § 14-4501 et seq.', url: 'https://lexace.ai/us/statute/maryland/CL-14-4502', kind: 'summary' },
      { cite: 'WMAR-2, Law to prevent spam calls takes effect (2024-01-01)', url: 'https://www.wmar2news.com/local/law-to-prevent-spam-calls-takes-effect-first-of-the-year', kind: 'summary' },
    ],
  }),
  rule('ME', 'Maine', {
    scope: 'automated', hours: 'mon-fri 09:00-17:00',
    note: 'Automated telephone calling devices only; the same subsection allows one such call per number per 8 hours.',
    sources: [{ cite: '10 M.R.S. § 1498(3), as quoted in LD 392 (121st Legislature)', url: 'https://legislature.maine.gov/legis/bills/bills_121st/billtexts/LD039201-1.asp', kind: 'statute' }],
  }),
  rule('MI', 'Michigan', { scope: 'all', hours: 'mon-sun 09:00-21:00', sources: [DROPCOWBOY, STELLO] }),
  rule('MN', 'Minnesota', { scope: 'all', hours: 'mon-sun 09:00-21:00', sources: [DROPCOWBOY, STELLO] }),
  rule('MS', 'Mississippi', {
    scope: 'all', hours: 'mon-sat 09:00-20:00',
    note: 'The statute says 8 a.m.-8 p.m. "Central Standard Time"; during daylight time 8 a.m. CST is 9 a.m. local, so 9 a.m.-8 p.m. local holds under both readings. No Sundays. The holiday ban was a PSC rule repealed in 2023 (dnc.com, 2024-06-03).',
    sources: [
      { cite: 'Miss. Code Ann. § 77-3-723(1)', url: 'https://getpocketlaw.com/law/state_mississippi/section-77-3-723-rules-for-authorized-calls_57b73fa7ff73', kind: 'statute' },
      { cite: 'DNC.com, Mississippi lifts prohibition for telemarketing on legal holidays (2024-06-03)', url: 'https://www.dnc.com/blog/no-more-holidays-mississippi-marketers-magnolia-state-lifts-prohibition-telemarketing-legal', kind: 'summary' },
    ],
  }),
  rule('NE', 'Nebraska', {
    scope: 'automated', hours: 'mon-sat 08:00-21:00, sun 13:00-21:00', holidays: '13:00-21:00', holidayCalendar: 'legal holidays',
    note: 'Prerecorded messages only, Sundays and legal holidays 1 p.m.-9 p.m.',
    sources: [{ ...CLICKPOINT, url: 'https://leadmanagerhelp.clickpointsoftware.com/en/articles/5753977-state-calling-hours', cite: 'ClickPoint, State Calling Hours, citing Neb. Admin. Code tit. 291, ch. 11, § 003' }],
  }),
  rule('NM', 'New Mexico', { scope: 'all', hours: 'mon-sun 09:00-21:00', sources: [DROPCOWBOY] }),
  rule('NV', 'Nevada', {
    scope: 'all', hours: 'mon-sun 09:00-20:00',
    note: 'NRS 597.814(2)(a) (read) bars automatic dialing-announcing calls 9 p.m.-9 a.m.; Drop Cowboy gives 9 a.m.-8 p.m. for all calls, which is kept.',
    sources: [{ cite: 'NRS 597.814(2)(a)', url: 'http://www.contactcentercompliance.com/legal/statutes/NV/NRS/597.814.adpx', kind: 'statute' }, DROPCOWBOY],
  }),
  rule('OK', 'Oklahoma',
    {
      scope: 'all', hours: 'mon-sun 08:00-20:00', since: '2022-11-01',
      sources: [
        { cite: 'Telephone Solicitation Act of 2022, 15 O.S. § 775C.4 (as summarized in a VICIdial forum notice, 2022-11-01)', url: 'http://eflo.net/VICIDIALforum/viewtopic.php?f=2&t=41540', kind: 'summary' },
        DROPCOWBOY,
      ],
    },
    {
      scope: 'automated', hours: 'mon-sun 09:00-21:00',
      note: 'Automatic dial announcing devices (prerecorded or synthesized voice).',
      sources: [{ cite: '15 O.S. § 755.1(C)(2)', url: 'https://lexace.ai/us/statute/oklahoma/15-755.1', kind: 'statute' }],
    }),
  rule('PA', 'Pennsylvania', {
    scope: 'all', hours: null, holidays: 'closed', since: '2019-12-03',
    holidayCalendar: "New Year's Day, Martin Luther King Jr. Day, Presidents' Day, Good Friday, Memorial Day, Flag Day, Independence Day, Labor Day, Columbus Day, Election Day, Veterans Day, Thanksgiving, Christmas",
    note: 'SB 992 (2025-2026 session) would ban Sundays and limit calls to 9 a.m.-7 p.m.; it had passed the Senate only in what was read here.',
    sources: [
      { cite: '73 P.S. § 2245(a)(10) (Act 73 of 2019, HB 318)', url: 'https://www.jenkinslaw.org/blog/2019/12/03/amendments-pennsylvanias-telemarketer-registration-act-effective-today', kind: 'summary' },
      { cite: 'DNC.com, Pennsylvania governor signs new robocall restrictions law (holiday list)', url: 'https://www.dnc.com/news/update-pennsylvania-governor-signs-new-robocall-restrictions-law', kind: 'summary' },
    ],
  }),
  rule('RI', 'Rhode Island', {
    scope: 'all', hours: 'mon-fri 09:00-18:00, sat 10:00-17:00', holidays: 'closed', holidayCalendar: 'state or federal holidays',
    sources: [
      { cite: 'R.I. Gen. Laws § 5-61-3.6 (hours of operation)', url: 'http://webserver.rilin.state.ri.us/Statutes/TITLE5/5-61/5-61-3.6.HTM', kind: 'statute' },
      { cite: 'R.I. Gen. Laws § 5-61-2(2) (definition of hours of operation)', url: 'https://instalawyer.io/laws/rhode-island-general-laws/section-5-61-2-definitions', kind: 'statute' },
    ],
  }),
  rule('SC', 'South Carolina', {
    scope: 'automated', hours: 'mon-sun 08:00-19:00',
    note: 'Automatically dialed announcing devices delivering a recorded message without a live operator; live calls keep 8 a.m.-9 p.m. (S.C. Code § 37-21-30).',
    sources: [{ cite: 'S.C. Code Ann. § 16-17-446(C)(3)', url: 'http://www.contactcentercompliance.com/legal/statutes/SC/S.C._Code_Ann./16-17-446.adpx', kind: 'statute' }],
  }),
  rule('SD', 'South Dakota', {
    scope: 'automated', hours: 'mon-fri 09:00-21:00',
    note: 'Automated telephone dialing systems: weekdays only.',
    sources: [{ cite: 'SDCL 37-30-28', url: 'http://legis.state.sd.us/statutes/DisplayStatute.aspx?Type=Statute&Statute=37-30-28', kind: 'statute' }],
  }),
  rule('TX', 'Texas', {
    scope: 'all', hours: 'mon-sat 09:00-21:00, sun 12:00-21:00',
    sources: [
      { cite: 'Tex. Bus. & Com. Code § 301.051, as summarized by TCPA Guide', url: 'https://tcpaguide.org/states/texas/rei-wholesaling', kind: 'summary' },
      { cite: 'LegalClarity, What is the legal time to call customers in Texas', url: 'https://legalclarity.org/what-is-the-legal-time-to-call-customers-in-texas', kind: 'summary' },
    ],
  }),
  rule('UT', 'Utah', {
    scope: 'all', hours: 'mon-sat 08:00-21:00', holidays: 'closed', holidayCalendar: 'Utah legal holidays',
    note: 'Applies unless the person gave prior express consent.',
    sources: [{ cite: 'Utah Code § 13-25a-103(3)', url: 'https://codes.findlaw.com/ut/title-13-commerce-and-trade/ut-code-sect-13-25a-103/', kind: 'statute' }],
  }),
  rule('WA', 'Washington', {
    scope: 'all', hours: 'mon-sun 08:00-20:00',
    sources: [{ cite: 'RCW 19.158.040(2)', url: 'https://app.leg.wa.gov/RCW/default.aspx?cite=19.158.040', kind: 'statute' }],
  }),
];
