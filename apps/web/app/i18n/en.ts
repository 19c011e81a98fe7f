// biome-ignore lint/style/noRestrictedImports: build scripts (make-icons, font subsetting) load this catalog under plain Node, which does not know the ~/ alias.
import { siteConfig } from '../config/site.ts';

const brand = siteConfig.name;

/**
 * English copy for every page. Exported `as const`; `Messages` (messages.ts) widens it so the
 * Arabic catalog must provide exactly the same keys and list lengths.
 * Texts marked "spec" are exact requirements of the product spec and are asserted by tests.
 */
export const en = {
  meta: {
    siteName: brand,
    home: {
      title: `${brand} | AI social media growth suite, built in Riyadh`,
      description: `${brand} is a Riyadh AI company building six connected products that analyse audiences, create bilingual content, optimise campaigns and engage followers across Instagram, X, TikTok, Facebook, LinkedIn and YouTube.`,
    },
    auth: {
      title: `Sign in or create an account | ${brand}`,
      description: `Sign in to your ${brand} account, or create one to start growing your social presence with AI built for the Gulf.`,
    },
    forgot: {
      title: `Reset your password | ${brand}`,
      description: `Forgot your ${brand} password? Ask for a link to set a new one.`,
    },
    reset: {
      title: `Set a new password | ${brand}`,
      description: `Choose a new password for your ${brand} account.`,
    },
    account: {
      title: `Your account | ${brand}`,
      description: `Manage your ${brand} account: email, password, two-step verification, devices and your data.`,
    },
    privacy: {
      title: `Privacy notice | ${brand}`,
      description: `What ${brand} collects when you create an account, why, how long it is kept, where it is stored, and your rights under Saudi Arabia's Personal Data Protection Law.`,
    },
    notFound: {
      title: `Page not found | ${brand}`,
      description: `The page you were looking for does not exist on ${brand}.`,
    },
    ogImageAlt: `${brand}: AI social media growth suite from Riyadh`,
    organizationDescription: `AI social media growth company based in Riyadh, Saudi Arabia.`,
  },
  common: {
    skipToContent: 'Skip to content',
    homeLabel: `${brand} home`,
    notifications: 'Notifications',
    closeNotification: 'Close notification',
  },
  nav: {
    label: 'Main',
    sections: { products: 'Products', solutions: 'Solutions', team: 'Team', contact: 'Contact' },
    signIn: 'Sign In',
    signUp: 'Sign Up',
    signOut: 'Sign Out',
    signedInAs: 'Signed in as',
    accountLink: 'Your account',
    openMenu: 'Open menu',
    closeMenu: 'Close menu',
    menuLabel: 'Menu',
  },
  hero: {
    badge: 'Riyadh, Saudi Arabia',
    headline: 'Grow every audience with AI that speaks your market',
    tagline: `${brand} turns scattered social channels into one intelligent growth engine: it reads your audience, writes in Arabic and English, and tells you which post, campaign and platform will pay off next.`,
    explore: 'Explore Our Products',
    contact: 'Contact Us',
    statsLabel: 'Key figures',
    stats: {
      market: { value: '$150B+', label: 'AI marketing market by 2025' },
      cagr: { value: '25%', label: 'CAGR for social media automation' },
      products: { value: '6', label: 'AI-powered products' },
    },
  },
  challenge: {
    eyebrow: 'The challenge',
    title: 'Social growth has outgrown spreadsheets and guesswork',
    intro:
      'Creators, agencies and brands across the Gulf publish on six or more platforms, in two languages, for audiences that change every week. The tools they use were not built for that.',
    problems: {
      chaos: {
        title: 'Multi-platform chaos',
        body: 'Six apps, six calendars and six analytics tabs. Teams lose hours copying posts between platforms and still miss the best time to publish on each one.',
      },
      data: {
        title: 'Data disconnection',
        body: 'Reach lives in one dashboard, sales in another and comments in a third. Nobody can see which content actually moves customers.',
      },
      trends: {
        title: 'Trend fatigue',
        body: 'Trends in Riyadh, Dubai and Cairo rise and fade within days. Chasing them by hand burns out teams and dilutes the brand voice.',
      },
      roi: {
        title: 'ROI uncertainty',
        body: 'Budgets grow while attribution stays vague. Marketing leads struggle to prove which campaigns earned their spend.',
      },
    },
  },
  solution: {
    eyebrow: 'Our solution',
    title: 'One intelligent layer over every channel you run',
    intro: `${brand} connects your accounts, learns from your results and acts on them, so your team spends its time on ideas instead of admin.`,
    capabilities: {
      unify: {
        title: 'Unified publishing',
        body: 'Plan, adapt and schedule one idea for every platform from a single calendar, with formats resized automatically.',
      },
      insight: {
        title: 'Audience intelligence',
        body: 'See who follows you and your competitors, what they respond to and when they are online, by city and language.',
      },
      create: {
        title: 'Bilingual content generation',
        body: 'Draft captions, scripts and replies in Gulf-appropriate Arabic and natural English that keep your brand voice.',
      },
      predict: {
        title: 'Trend prediction',
        body: 'Spot rising topics and sounds early and get ready-to-use angles before the trend peaks.',
      },
      optimize: {
        title: 'Campaign optimisation',
        body: 'Shift budget and timing towards the posts that convert, with clear recommendations instead of raw charts.',
      },
      measure: {
        title: 'Revenue attribution',
        body: 'Tie reach, clicks and conversations to leads and sales so every riyal of spend has a measurable return.',
      },
    },
  },
  products: {
    eyebrow: 'Products',
    title: 'Six products, one growth suite',
    intro:
      'Use them together or start with the one you need most. Every product shares the same data, so each one makes the others smarter.',
    modules: {
      analyzer: {
        name: 'Audience & Competitor Analyzer',
        body: 'Maps your followers and your competitors’ audiences by interest, city, language and activity, and flags the gaps you can win.',
      },
      creator: {
        name: 'Social Content Creator',
        body: 'Generates on-brand posts, captions, hooks and short-video scripts in Arabic and English, ready for review and scheduling.',
      },
      optimizer: {
        name: 'Growth & Campaign Optimizer',
        body: 'Tests timing, formats and budgets continuously and moves spend to what performs, with forecasts you can share with clients.',
      },
      strategist: {
        name: 'Business Strategy Assistant',
        body: 'Turns your social data into quarterly plans, positioning ideas and market-entry advice for the Saudi and Gulf markets.',
      },
      dashboard: {
        name: 'Unified Dashboard',
        body: 'Every account, campaign and KPI in one view, with reports your leadership and your clients can read at a glance.',
      },
      engagement: {
        name: 'Engagement Bot',
        body: 'Answers comments and messages around the clock in your brand voice and hands sensitive conversations to your team.',
      },
    },
    platformsLabel: 'The Engagement Bot works on six platforms',
    platforms: {
      instagram: 'Instagram',
      x: 'X',
      tiktok: 'TikTok',
      facebook: 'Facebook',
      linkedin: 'LinkedIn',
      youtube: 'YouTube',
    },
  },
  market: {
    eyebrow: 'Market opportunity',
    title: 'A fast-growing market, led by the Gulf',
    intro:
      'Saudi Arabia has one of the most active social audiences in the world, and Vision 2030 is accelerating digital commerce. Demand for automation is growing faster than the teams available to run it.',
    figures: {
      market: { value: '$150B+', label: 'AI marketing market by 2025' },
      cagr: { value: '25%', label: 'CAGR for social media automation, 2024–2030' },
      products: { value: '6', label: 'AI-powered products in one suite' },
    },
    audiencesTitle: 'Who we serve',
    audiences: {
      creators: 'Influencers and content creators',
      agencies: 'Digital marketing agencies',
      smes: 'SMEs and startups',
      enterprise: 'Enterprise brands',
    },
    expansion: 'Launching in Saudi Arabia and the Gulf, then expanding globally.',
  },
  edge: {
    eyebrow: 'Competitive edge',
    title: 'Built for this region from day one',
    items: {
      bilingual: {
        title: 'Bilingual Arabic and English',
        body: 'Native Arabic understanding, including Gulf dialects, alongside English, in every product rather than as a translation layer.',
      },
      models: {
        title: 'Proprietary regional models',
        body: 'Models trained on regional content, culture and seasonality, from Ramadan campaigns to national-day moments.',
      },
      integrations: {
        title: 'Deep integrations',
        body: 'Connects to the six major platforms, ad managers, CRMs and e-commerce stores so data flows without manual exports.',
      },
      adaptive: {
        title: 'Adaptive learning bot',
        body: 'The Engagement Bot learns from every approved reply and gets closer to your voice week after week.',
      },
    },
  },
  business: {
    eyebrow: 'Business model',
    title: 'Flexible ways to work with us',
    lines: {
      subscriptions: {
        title: 'Subscriptions',
        body: 'Monthly or annual plans for the whole suite.',
        tiers: { basic: 'Basic', pro: 'Pro', enterprise: 'Enterprise' },
      },
      consulting: {
        title: 'Consulting',
        body: 'Growth audits and strategy workshops with our specialists.',
      },
      managed: {
        title: 'Managed campaigns',
        body: 'We run campaigns end to end on a performance-based revenue share.',
      },
      api: {
        title: 'API licensing',
        body: 'License our analysis and generation models for your own products.',
      },
      whiteLabel: {
        title: 'Custom white-label bots',
        body: 'Engagement bots under your brand, trained on your data.',
      },
    },
  },
  team: {
    eyebrow: 'Leadership',
    title: 'The founders',
    intro: 'A team that has built products and campaigns for Gulf audiences for more than a decade.',
    expertiseLabel: 'Expertise',
    members: {
      ceo: {
        name: 'Faisal Al-Harbi',
        role: 'Co-founder & CEO',
        expertise: 'Growth strategy, Gulf media markets, partnerships',
        bio: `Faisal led digital growth for retail and telecom brands in Riyadh and Dubai, running campaigns that reached millions of followers. He founded ${brand} to give every marketer the analytics once reserved for the largest brands.`,
      },
      cto: {
        name: 'Dr. Layla Al-Otaibi',
        role: 'Co-founder & CTO',
        expertise: 'Arabic natural language processing, machine learning, data platforms',
        bio: `Layla holds a PhD in computational linguistics and has built Arabic language models used in production across the region. She leads the research behind ${brand}’s bilingual and regional models.`,
      },
    },
    philosophyTitle: 'Our philosophy',
    philosophy:
      'Growth should be measurable, authentic and respectful of the audience. We build AI that amplifies human creativity rather than replacing it.',
    visionTitle: 'Our vision',
    vision:
      'To become the growth engine behind every ambitious brand and creator in the Arab world, and to take regional innovation to the global stage.',
  },
  footer: {
    tagline: `${brand} is an AI social media growth company based in Riyadh, Saudi Arabia.`,
    quickLinks: 'Quick links',
    contactTitle: 'Get in touch',
    emailLabel: 'Email',
    websiteLabel: 'Website',
    copyright: `© ${siteConfig.copyrightYear} ${brand}. All rights reserved.`,
    privacy: 'Privacy notice',
  },
  auth: {
    backToHome: 'Back to Home',
    emailLabel: 'Email',
    emailPlaceholder: 'you@example.com',
    passwordLabel: 'Password',
    passwordPlaceholder: '••••••••',
    pending: 'Please wait...',
    signin: {
      heading: 'Welcome Back',
      text: 'Sign in to your account',
      submit: 'Sign In',
      toggle: "Don't have an account? Sign up",
    },
    signup: {
      heading: 'Create Account',
      text: `Join ${brand} today`,
      passwordHint: 'Must be at least 6 characters',
      // One line under the form (PDPL consent): what is collected, and the notice. Signing up accepts it.
      consentBefore:
        'We keep your email, a hash of your password and your sign-in records to run your account. By signing up you accept our',
      consentLink: 'privacy notice',
      submit: 'Sign Up',
      toggle: 'Already have an account? Sign in',
    },
    // Third-party sign-in buttons (features/auth/components/social-buttons.tsx): "<continueWith> Google".
    social: {
      divider: 'or',
      continueWith: 'Continue with',
    },
    // The CAPTCHA widget (features/auth/components/captcha-widget.tsx), when the service asks for it.
    captcha: {
      prompt: 'Complete the security check to continue.',
      unavailable: 'The security check could not load. Check your connection and reload the page.',
    },
    validation: {
      invalidEmail: 'Invalid email address',
      passwordTooShort: 'Password must be at least 6 characters',
    },
    errors: {
      title: 'Error',
      alreadyRegistered: 'This email is already registered. Please sign in instead.',
      invalidCredentials: 'Invalid email or password. Please try again.',
      breachedPassword:
        'This password has appeared in a data breach or is too common. Please choose a different one.',
      captchaFailed: 'The security check did not pass. Please complete it again and retry.',
      fallback: 'An error occurred. Please try again.',
    },
    success: {
      signUpTitle: 'Success!',
      signUpText: 'Please check your email to confirm your account.',
      signInTitle: 'Welcome back!',
      signInText: "You've successfully signed in.",
    },
    passkey: {
      or: 'or',
      signIn: 'Sign in with a passkey',
      signInFailed: 'That passkey could not sign you in. Try again, or sign in with your email and password.',
      cancelled: 'Passkey sign-in was cancelled.',
      unsupported: 'This browser does not support passkeys.',
      add: 'Add a passkey',
      added: 'Passkey added. Next time, sign in with it instead of your password.',
      addFailed: 'The passkey could not be added. Please try again.',
    },
  },
  account: {
    forgotLink: 'Forgot password?',
    backToSignIn: 'Back to sign in',
    /** `{0}` is replaced by the number of seconds left. */
    waitSeconds: 'You can ask for another link in {0} s.',
    notices: {
      confirmed: 'Your email is confirmed: sign in.',
      linkExpired: 'That email link has expired or was already used.',
      linkInvalid: 'That email link is not valid.',
      providerFailed:
        'Signing in with that account did not work. Try again, or sign in with your email and password.',
      providerEmailTaken: 'An account with this email already exists. Sign in with your email and password.',
      linkNext:
        'Sign in below. If your email is not confirmed yet, enter it and ask for a new confirmation link.',
    },
    resend: {
      prompt: 'Didn’t get the email? Check your spam folder, or ask for a new link.',
      button: 'Send a new confirmation link',
      sent: 'We sent a new confirmation link. Please check your email.',
      unconfirmed: 'Your email is not confirmed yet. Open the link we sent you, or ask for a new one.',
    },
    forgot: {
      heading: 'Reset your password',
      text: 'Enter your account’s email and we’ll send you a link to set a new password.',
      submit: 'Send reset link',
      sent: 'If an account exists for that address, we sent a link to set a new password. Please check your email.',
    },
    reset: {
      heading: 'Set a new password',
      text: 'Choose a new password for your account.',
      passwordLabel: 'New password',
      submit: 'Save new password',
      checking: 'Checking your link…',
      successTitle: 'Password updated',
      successText: 'Your new password is saved and you are signed in.',
      noSession: 'This reset link has expired or was already used, or the page was opened without one.',
      noSessionNext: 'Ask for a new link and open it in this browser.',
      requestNew: 'Send me a new link',
    },
    mfa: {
      heading: 'Two-step verification',
      text: 'Enter the 6-digit code from your authenticator app.',
      codeLabel: 'Verification code',
      submit: 'Verify',
      invalidCode: 'That code is wrong or has expired. Enter the current code from your app.',
      codeFormat: 'Enter the 6 digits from your app.',
      keyText: 'Use the security key or passkey you added to your account.',
      keyButton: 'Use security key',
      keyFailed: 'The security key could not be used. Please try again.',
      cancel: 'Cancel and sign out',
      useRecovery: 'Use a recovery code',
      recoveryText:
        'Enter one of the recovery codes you saved when you set up two-step verification. Each code works once.',
      recoveryLabel: 'Recovery code',
      recoverySubmit: 'Use recovery code',
      recoveryFormat: 'A recovery code has 16 letters and digits.',
      recoveryInvalid: 'That recovery code is wrong or was already used.',
      recoveryLocked: 'Too many wrong recovery codes. Wait a few minutes, then try again.',
      useApp: 'Use the code from your app instead',
      useOther: 'Verify another way',
      /** `{0}`: the last two digits of the factor's number. */
      smsText: 'We can text a code to your phone number ending in {0}.',
      smsButton: 'Text me a code',
      /** `{0}`: the last two digits of the factor's number. */
      smsSent: 'Enter the 6-digit code we texted to your phone number ending in {0}.',
      smsCodeLabel: 'Code from the text message',
      smsCodeFormat: 'Enter the 6 digits from the text message.',
      smsSubmit: 'Verify code',
      smsInvalid: 'That code is wrong or has expired. Ask for a new one.',
      smsResend: 'Text me a new code',
      smsResent: 'We texted you a new code.',
      /** `{0}`: seconds left before the service sends another code. */
      smsWait: 'You can ask for a new code in {0} s.',
      smsFailed: 'The text message could not be sent. Please try again later.',
    },
  },
  accountPage: {
    heading: 'Your account',
    text: 'Your email, password, two-step verification, devices and data.',
    loading: 'Loading your account…',
    pending: 'Please wait...',
    doneTitle: 'Done',
    cancel: 'Cancel',
    email: {
      heading: 'Email',
      current: 'Current email address',
      /** An account without one (signed up with a phone number, say). */
      none: 'No email address yet.',
      newLabel: 'New email address',
      submit: 'Change email',
      same: 'That is already your email address.',
      /** `{0}`: the new address. */
      pendingChange: 'A change to {0} is waiting: open the links we sent to both addresses to finish it.',
      /** `{0}`: the new address. When only the new address confirms (see lib/email-change.ts). */
      pendingChangeNew: 'A change to {0} is waiting: open the link we sent to it to finish it.',
      sentTitle: 'Check both inboxes',
      /** `{0}`: the new address. */
      sent: 'We sent a confirmation link to your current address and to {0}. Your email changes once both links are opened.',
      sentNewTitle: 'Check your new inbox',
      /** `{0}`: the new address. */
      sentNew: 'We sent a confirmation link to {0}. Your email changes once it is opened.',
      changedTitle: 'Email changed',
      /** `{0}`: the new address, already in use. */
      changed: 'Your account now uses {0}.',
    },
    /** The reauthentication code's step, by where the service sent it (lib/reauthentication.ts). */
    reauthCode: {
      email: {
        text: 'We emailed you a 6-digit code. Enter it to confirm it is you.',
        format: 'Enter the 6 digits from the email.',
        resend: 'Email me a new code',
      },
      sms: {
        text: 'We texted you a 6-digit code. Enter it to confirm it is you.',
        format: 'Enter the 6 digits from the text message.',
        resend: 'Text me a new code',
      },
    },
    password: {
      heading: 'Password',
      newLabel: 'New password',
      submit: 'Change password',
      codeLabel: 'Confirmation code',
      codeSubmit: 'Confirm new password',
      codeInvalid: 'That code is wrong or has expired. Ask for a new one.',
      changedTitle: 'Password changed',
      changed: 'Your new password is saved. Your other devices were signed out.',
      same: 'Your new password must be different from the current one.',
      /** `{0}`: the reasons, joined. */
      weak: 'Choose a stronger password: {0}.',
      reasons: {
        length: 'it is too short',
        characters: 'it needs more kinds of characters (letters, digits, symbols)',
        pwned: 'it is too common or has appeared in a data breach',
        other: 'it does not meet the password rules',
      },
    },
    mfa: {
      heading: 'Two-step verification',
      levelAal2: 'This session is verified with your password and a second factor.',
      levelAal1: 'This session is verified with your password only.',
      none: 'No second factor is active. Add one to protect your account if your password leaks.',
      activeCount: 'Active second factors:',
      verified: 'Active',
      unverified: 'Not confirmed',
      types: {
        totp: 'Authenticator app',
        webauthn: 'Security key or passkey',
        phone: 'Phone',
        recovery_code: 'Recovery codes',
      },
      unnamed: 'Unnamed',
      nameLabel: 'Name',
      remove: 'Remove',
      removedTitle: 'Second factor removed',
      addTotp: 'Add an authenticator app',
      totpName: 'Authenticator app',
      scan: 'Scan this QR code with your authenticator app, or type the setup key into it.',
      qrAlt: 'QR code for your authenticator app',
      secretLabel: 'Setup key',
      copy: 'Copy key',
      copied: 'The setup key is copied.',
      codeLabel: 'Code from the app',
      codeFormat: 'Enter the 6 digits from your app.',
      codeInvalid: 'That code is wrong or has expired. Enter the current code from your app.',
      confirm: 'Confirm',
      totpAddedTitle: 'Authenticator app added',
      totpAdded: 'Your sign-ins now ask for a code from the app.',
      addKey: 'Add a security key or passkey',
      keyName: 'Security key',
      keyAddedTitle: 'Security key added',
      keyAdded: 'Your sign-ins can now use this key as a second step.',
      keyFailed: 'The security key could not be added. Please try again.',
      phone: {
        add: 'Add a phone number (SMS)',
        label: 'Mobile number',
        /** `{0}`, `{1}`: example numbers (`siteConfig.phoneExamples`: local, abroad). */
        hint: 'A Saudi number as you dial it ({0}), or any mobile number with its country code ({1}).',
        /** `{0}`, `{1}`: example numbers (`siteConfig.phoneExamples`: local, international). */
        invalid: 'Enter a mobile number that can receive text messages, such as {0} or {1}.',
        disabled: 'This service cannot send text messages, so a phone number cannot be added.',
        exists: 'This number is already a second factor on your account.',
        /** `{0}`: the number, in E.164. */
        sent: 'We texted a 6-digit code to {0}.',
        codeLabel: 'Code from the text message',
        codeFormat: 'Enter the 6 digits from the text message.',
        codeInvalid: 'That code is wrong or has expired. Ask for a new one.',
        resend: 'Text me a new code',
        /** `{0}`: the number, in E.164. */
        resent: 'We texted a new code to {0}.',
        /** `{0}`: seconds left before the service sends another code. */
        wait: 'You can ask for a new code in {0} s.',
        sendFailed: 'The text message could not be sent. Please try again later.',
        addedTitle: 'Phone number added',
        added: 'Your sign-ins can now ask for a code by text message.',
      },
      recovery: {
        heading: 'Recovery codes',
        text: 'If you lose your phone or security key, a recovery code lets you sign in. Each code works once.',
        /** `{0}`: codes left; `{1}`: codes issued. */
        left: '{0} of {1} recovery codes left.',
        none: 'You have no recovery codes yet.',
        generate: 'Create recovery codes',
        regenerate: 'Create new recovery codes',
        regenerateNote: 'New codes replace the old ones: the old codes stop working.',
        saveTitle: 'Save your recovery codes',
        saveText:
          'Keep these codes somewhere safe, such as a password manager. They are shown only this once.',
        copy: 'Copy codes',
        copied: 'The recovery codes are copied.',
        download: 'Download (.txt)',
        fileHeading: 'Namaa recovery codes. Each code works once.',
        saved: 'I have saved them',
        createdTitle: 'Recovery codes created',
      },
    },
    devices: {
      heading: 'Devices',
      text: 'Where your account is signed in.',
      thisDevice: 'This device',
      unknownDevice: 'Unknown browser',
      /** `{0}`: a date and time. */
      lastActive: 'Last active {0}',
      signOutOthers: 'Sign out of all other devices',
      signedOutTitle: 'Other devices signed out',
      signedOut: 'Only this device is still signed in.',
    },
    data: {
      heading: 'Your data',
      exportText:
        'Download everything we hold about your account (profile, sign-in methods, second factors without their secrets, devices and account activity) as a JSON file.',
      exportButton: 'Download my data',
      exportedTitle: 'Download ready',
      exported: 'Your data was saved as namaa-account.json.',
      deleteHeading: 'Delete your account',
      deleteText:
        'This deletes your account, its sign-in methods and second factors, and signs out every device. It cannot be undone.',
      deleteStart: 'Delete my account',
      deleteConfirm: 'Delete my account permanently',
      deletedTitle: 'Account deleted',
      deleted: 'Your account is deleted and every device is signed out. We sent a confirmation email.',
      /** An account without an email address: no confirmation is sent. */
      deletedNoEmail: 'Your account is deleted and every device is signed out.',
    },
  },
  // The privacy notice (/privacy): short, PDPL-minded. Its version is the service's
  // PRIVACY_NOTICE_VERSION; change both together.
  privacy: {
    heading: 'Privacy notice',
    updated: 'Version 2026-11 · November 2026',
    intro: `${brand} (Riyadh, Saudi Arabia) controls the personal data of your account. This notice follows Saudi Arabia's Personal Data Protection Law (PDPL).`,
    sections: [
      {
        title: 'What we collect',
        body: 'Your email address (or phone number), a one-way hash of your password (never the password itself), your sessions (time, IP address and browser) and a security log of sign-ins and account changes. Anything you add to your profile is yours to change.',
      },
      {
        title: 'Why',
        body: 'To create your account, sign you in, keep it secure (detecting stolen sessions, limiting attacks) and send you the messages your account needs. We do not sell your data or use it for advertising.',
      },
      {
        title: 'How long',
        body: 'Your account stays until you delete it. A sign-up never confirmed is removed after 7 days; ended sessions and used links after a day; the security log after 90 days.',
      },
      {
        title: 'Where',
        body: 'Your data is stored in Saudi Arabia. It is not sent abroad unless a service listed in our documentation (for example a sign-in with Google) needs it and you use that service.',
      },
      {
        title: 'Your rights',
        body: 'You can see, download, correct and delete your data from your account page at any time. You may also write to us: we answer within 30 days. You may complain to the Saudi Data and AI Authority (SDAIA).',
      },
      {
        title: 'If something goes wrong',
        body: 'If your data is involved in a breach, we notify the authority within 72 hours and tell you when it puts you at risk.',
      },
    ],
    contact: 'Questions or requests:',
  },
  notFound: {
    code: '404',
    heading: 'Oops! Page not found',
    returnHome: 'Return to Home',
  },
} as const;
